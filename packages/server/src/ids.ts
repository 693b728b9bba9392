import { randomBytes, randomUUID } from 'node:crypto';

/** Id generation is a dependency (habit 6); ids are random, never sequential (api-details 0). */
export interface Ids {
  /** 24 lower-case hex characters: products, images, store pages, websites, owners. */
  objectId(): string;
  /** Variants and webhook subscriptions. */
  uuid(): string;
}

export const randomIds: Ids = {
  objectId: () => randomBytes(12).toString('hex'),
  uuid: () => randomUUID(),
};
