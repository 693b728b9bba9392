import { randomUUID } from 'node:crypto';
import { randomPoolBytes } from './random-pool.ts';

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
  objectId: () => randomPoolBytes(12).toString('hex'),
  uuid: () => randomUUID(),
};

/** Request ids (the error body's contextId): 8 characters of 48 random bits. */
export function requestIds(): () => string {
  return () => randomPoolBytes(6).toString('base64url');
}
