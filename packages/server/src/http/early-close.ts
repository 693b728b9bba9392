import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyReply } from 'fastify';

/** How long a client may go on sending after an early answer before its connection is dropped. */
const GRACE_MS = 2_000;

/**
 * Closes the connection after an answer sent before the request's body arrived (a refused upload,
 * a missing credential), without reading the rest of the body, however large. It is a staged
 * close (RFC 9112 9.6): the answer and a FIN go out, nothing more is read, and the connection is
 * dropped once the grace period is over. Dropping it at once would reset it while the client still
 * writes, and the reset can destroy the answer before the client has read it.
 */
export function closeAfterAnswer(reply: FastifyReply): void {
  reply.header('connection', 'close');
  const socket = reply.raw.socket;
  if (!(socket instanceof Socket)) return; // an injected request has no connection
  // Node's HTTP server ends a `Connection: close` exchange by calling destroySoon.
  socket.destroySoon = () => {
    socket.pause();
    socket.end();
    setTimeout(() => socket.destroy(), GRACE_MS).unref();
  };
}

/**
 * Whether some of the request's body is still to come, so that answering now calls for
 * closeAfterAnswer. A request whose headers announce no body (no Transfer-Encoding, no
 * Content-Length above 0) has none, even before the HTTP parser, just past its headers, marks it
 * complete: a GET answered 404 at once keeps its connection.
 */
export function bodyUnread(request: IncomingMessage): boolean {
  if (request.complete) return false;
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) > 0);
}

declare module 'node:net' {
  interface Socket {
    /** Ends the socket once its writes are flushed; what Node's HTTP server calls to close one. */
    destroySoon(): void;
  }
}
