import { Transform, type Readable } from 'node:stream';

/**
 * The stream passed on unchanged, keeping its first `limit` bytes as they go by: an upload is
 * checked from its header without reading the stored file back. The source's errors end the
 * returned stream with the same error.
 */
export function keepHead(source: Readable, limit: number) {
  const chunks: Buffer[] = [];
  let kept = 0;
  let total = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (kept < limit) {
        const part = Buffer.from(chunk.subarray(0, limit - kept));
        chunks.push(part);
        kept += part.length;
      }
      total += chunk.length;
      done(null, chunk);
    },
  });
  source.on('error', (error) => stream.destroy(error));
  source.pipe(stream);
  return {
    stream,
    bytes: () => Buffer.concat(chunks),
    /** Whether the head is the whole file. */
    whole: () => total === kept,
  };
}
