import { randomBytes, randomUUID } from 'node:crypto';

/** Id generation is a dependency (habit 6); ids are random, never sequential (api-details 0). */
export interface Ids {
  /** 24 lower-case hex characters: products, images, store pages, websites, owners. */
  objectId(): string;
  /** Variants and webhook subscriptions. */
  uuid(): string;
}

/** The form of an object id: what id checks test before a lookup, whatever the resource. */
export const OBJECT_ID = /^[0-9a-f]{24}$/;

export const randomIds: Ids = {
  objectId: () => randomBytes(12).toString('hex'),
  uuid: () => randomUUID(),
};

/**
 * Request ids (the error body's contextId): 8 characters of 48 random bits, cut from a pool so
 * that a request costs no call into the system's random source (it showed in profiles).
 */
export function requestIds(): () => string {
  const ID_BYTES = 6;
  let pool = Buffer.alloc(0);
  let offset = 0;
  return () => {
    if (offset + ID_BYTES > pool.length) {
      pool = randomBytes(1024 * ID_BYTES);
      offset = 0;
    }
    offset += ID_BYTES;
    return pool.toString('base64url', offset - ID_BYTES, offset);
  };
}
