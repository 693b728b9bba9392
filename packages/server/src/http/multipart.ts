import type { MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { PassThrough, type Readable } from 'node:stream';
import { DomainError, PayloadTooLarge, ValidationError } from '../shared/errors.ts';
import { refuseNul } from './request-text.ts';

export interface FilePart {
  stream: Readable;
  fileName: string;
}

/**
 * The parser's errors as the client's mistakes: whatever is wrong with the body (no boundary, an
 * over-long one, a body cut short) is a 400, found while looking for the part or while the file
 * streams; a body over a limit is a 413. Anything already a domain error stays what it is.
 */
function uploadError(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  if ((error as { statusCode?: number }).statusCode === 413) {
    return new PayloadTooLarge('body: larger than this endpoint accepts');
  }
  return new ValidationError('body: not a well-formed multipart/form-data body', null);
}

/** Room beside the file for the part headers and a few small fields. */
const FIELD_BYTES = 4096;
const FIELDS = 10;
const OVERHEAD_BYTES = 64 * 1024;

/**
 * The file of a multipart/form-data upload, in the part named `field`, as a stream whose errors
 * are domain errors: storing it can then tell the client's broken body from its own failures.
 * A body declared larger than `maxFileBytes` allows is refused before any of it is read; one
 * streamed past it errors at the limit, and no more of it is read.
 */
export async function filePart(
  request: FastifyRequest,
  field: string,
  maxFileBytes: number,
): Promise<FilePart> {
  const tooLarge = () => new PayloadTooLarge(`${field}: larger than ${maxFileBytes / (1024 * 1024)} MB`);
  if (Number(request.headers['content-length']) > maxFileBytes + OVERHEAD_BYTES) throw tooLarge();
  if (!request.isMultipart()) {
    throw new ValidationError(
      `Content-Type: send the file as multipart/form-data, in a part named "${field}"`,
      'INVALID_CONTENT_TYPE',
    );
  }
  let part: MultipartFile | undefined;
  try {
    part = await request.file({
      limits: { fileSize: maxFileBytes, files: 1, fields: FIELDS, fieldSize: FIELD_BYTES, parts: FIELDS + 1 },
    });
  } catch (error) {
    throw uploadError(error);
  }
  if (!part || part.fieldname !== field) {
    part?.file.resume();
    throw new ValidationError(
      `${field}: a part named "${field}" with the file is required`,
      'MISSING_ARGUMENT',
    );
  }
  const file = part.file;
  // The parser may be done with the file before it is handed over: a body cut short then neither
  // errors nor ends again, and a file past the limit has already passed its 'limit' event.
  if (file.destroyed) throw uploadError(file.errored ?? new Error('the multipart body ended early'));
  try {
    if (file.truncated) throw tooLarge();
    refuseNul(part.filename, `${field}.filename`);
  } catch (error) {
    file.resume();
    throw error;
  }
  const stream = new PassThrough();
  // The error may come before the consumer starts reading (it looks up the product first); it
  // then finds it on the stream. Without a listener meanwhile, it would end the process.
  stream.on('error', () => {});
  file.on('error', (error) => stream.destroy(uploadError(error)));
  // At the limit the parser would go on reading (and dropping) the rest of the body: stop there.
  file.on('limit', () => stream.destroy(tooLarge()));
  file.pipe(stream);
  return { stream, fileName: part.filename };
}
