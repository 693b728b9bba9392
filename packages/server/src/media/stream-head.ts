import { finished, Transform, type Readable } from 'node:stream';

/**
 * The stream passed on unchanged, keeping its first `limit` bytes as they go by: an upload is
 * checked from its header without reading the stored file back. The source's errors end the
 * returned stream with the same error, and so does a source that closes without ending.
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
  // The source may fail (a client closing mid-upload) before the consumer has its listeners on
  // the stream (storage makes a folder first): the consumer finds the error on the stream then.
  // Without a listener meanwhile, it would end the process.
  stream.on('error', () => {});
  // The source may also have failed already, while the product was looked up: its 'error' is then
  // gone and pipe() never ends the stream, which would keep storage writing (and the request
  // waiting) forever. finished() tells of a failure past or to come, and of a close without end.
  finished(source, { writable: false }, (error) => {
    if (error) stream.destroy(error);
  });
  source.pipe(stream);
  return {
    stream,
    bytes: () => Buffer.concat(chunks),
    /** Whether the head is the whole file. */
    whole: () => total === kept,
  };
}
