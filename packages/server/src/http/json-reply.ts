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
 * A document's bytes, and the body that lists it alone, `{"<field>":[<document>]}` (what
 * documentList would build), in one Buffer of their own (see ownBuffer): `document` is a view of
 * the middle of `alone`, so a response that lists it alone is sent without building anything.
 */
export function listedAlone(field: string, text: string): { document: Buffer; alone: Buffer } {
  const head = `{"${field}":[`;
  const length = Buffer.byteLength(text);
  const alone = Buffer.allocUnsafeSlow(head.length + length + 2);
  alone.write(head, 0, 'latin1');
  alone.write(text, head.length);
  alone.write(']}', head.length + length, 'latin1');
  return { document: alone.subarray(head.length, head.length + length), alone };
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
