import type { FastifyReply } from 'fastify';

/** Sends JSON that is already serialized (prebuilt product documents) without serializing it again. */
export function sendJson(reply: FastifyReply, json: string | Buffer, status = 200): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(json);
}

const COMMA = Buffer.from(',');

/** `{"<field>":[<documents>]<rest>}`: a list of prebuilt JSON documents as one body, copied once. */
export function documentList(field: string, documents: Buffer[], rest = ''): Buffer {
  const parts: Buffer[] = [Buffer.from(`{"${field}":[`)];
  for (const [i, document] of documents.entries()) {
    if (i > 0) parts.push(COMMA);
    parts.push(document);
  }
  parts.push(Buffer.from(`]${rest}}`));
  return Buffer.concat(parts);
}

/**
 * The bytes of a string in a Buffer of their own. Buffer.from() puts small strings in shared
 * 8 KB slabs, and one cached document would keep its whole slab alive: the cache's byte budget
 * would then undercount the memory it holds by up to three times.
 */
export function ownBuffer(text: string): Buffer {
  const buffer = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  buffer.write(text);
  return buffer;
}
