import type { FastifyReply } from 'fastify';

/** Sends JSON that is already serialized (prebuilt product documents) without serializing it again. */
export function sendJson(reply: FastifyReply, json: string, status = 200): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(json);
}
