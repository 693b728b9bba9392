import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * Requests the HTTP parser refuses before Fastify sees them: malformed HTTP, oversized headers,
 * a request that did not arrive in time. They get the documented error body too (api-details 1),
 * never an echo of what was sent, and the connection is closed.
 */
const ANSWERS: Record<string, { status: number; message: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    message: 'the request did not arrive in time; send it again, faster',
  },
  HPE_HEADER_OVERFLOW: { status: 431, message: 'headers: larger than this server accepts' },
  HPE_INVALID_TRANSFER_ENCODING: {
    status: 400,
    message: 'Transfer-Encoding: must end in chunked, and never come with Content-Length',
  },
};
const MALFORMED = { status: 400, message: 'the request is not valid HTTP/1.1' };

/** Fastify's `clientErrorHandler`; `requestId` is the generator of contextIds. */
export function clientErrorHandler(requestId: () => string) {
  return function onClientError(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket) {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const answer = ANSWERS[error.code ?? ''] ?? MALFORMED;
    const contextId = requestId();
    this.log.info({ contextId, code: error.code, status: answer.status }, 'client error');
    if (!socket.writable) return void socket.destroy();
    const body = JSON.stringify({
      type: 'INVALID_REQUEST_ERROR',
      subtype: null,
      message: answer.message,
      details: null,
      contextId,
    });
    const head = [
      `HTTP/1.1 ${answer.status} ${http.STATUS_CODES[answer.status]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Connection: close',
    ].join('\r\n');
    // Server sockets are half-open by default: end() alone would leave a slow client's side open.
    socket.end(`${head}\r\n\r\n${body}`, () => socket.destroy());
  };
}
