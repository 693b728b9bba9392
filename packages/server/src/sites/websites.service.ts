import type { Clock } from '../shared/clock.ts';
import type { Db } from '../db/database.ts';
import { NotFound, ValidationError } from '../shared/errors.ts';
import type { Ids } from '../shared/ids.ts';
import { isCurrency } from '../shared/money.ts';
import { insertStorePage } from './store-pages.repo.ts';
import { websiteUrl } from '../shared/store-urls.ts';
import {
  findOwnedWebsite,
  findOwnerIdByEmail,
  findWebsite,
  insertWebsite,
  listOwnedWebsites,
  type WebsiteRow,
} from './websites.repo.ts';

export const MEASUREMENT_STANDARDS = ['IMPERIAL', 'METRIC'] as const;
export type MeasurementStandard = (typeof MEASUREMENT_STANDARDS)[number];

export interface WebsiteInput {
  ownerEmail: string;
  title: string;
  currency?: string;
  measurementStandard?: string;
  language?: string;
  timeZone?: string;
}

/** A website starts with one store page, "Shop". */
export async function createWebsite(
  deps: { db: Db; clock: Clock; ids: Ids },
  input: WebsiteInput,
): Promise<{ websiteId: string; storePageId: string }> {
  const title = input.title.trim();
  if (!title || title.length > 200) throw new ValidationError('title: 1 to 200 characters');
  const currency = (input.currency ?? 'USD').toUpperCase();
  if (!isCurrency(currency)) throw new ValidationError(`currency: not an ISO 4217 code: "${input.currency}"`);
  const standard = (input.measurementStandard ?? 'IMPERIAL').toUpperCase();
  if (!(MEASUREMENT_STANDARDS as readonly string[]).includes(standard)) {
    throw new ValidationError('measurementStandard: IMPERIAL or METRIC');
  }
  const timeZone = input.timeZone ?? 'UTC';
  if (!Intl.supportedValuesOf('timeZone').includes(timeZone) && timeZone !== 'UTC') {
    throw new ValidationError(`timeZone: not an IANA time zone: "${timeZone}"`);
  }
  const owner = await findOwnerIdByEmail(deps.db, input.ownerEmail);
  if (!owner) throw new NotFound(`owner not found: ${input.ownerEmail}`);

  const websiteId = deps.ids.objectId();
  const storePageId = deps.ids.objectId();
  const now = deps.clock.now(websiteId);
  await deps.db.transaction().execute(async (trx) => {
    await insertWebsite(trx, {
      id: websiteId,
      owner_id: owner.id,
      title,
      currency,
      measurement_standard: standard as MeasurementStandard,
      language: input.language ?? 'en-US',
      time_zone: timeZone,
      created_at: now,
    });
    await insertStorePage(trx, {
      id: storePageId,
      website_id: websiteId,
      title: 'Shop',
      url_slug: 'shop',
      is_enabled: true,
      created_at: now,
    });
  });
  return { websiteId, storePageId };
}

export async function getWebsite(db: Db, id: string): Promise<WebsiteRow> {
  const website = await findWebsite(db, id);
  if (!website) throw new NotFound(`website not found: ${id}`);
  return website;
}

/** One of the owner's websites; another owner's looks the same as a missing one. */
export async function ownedWebsite(db: Db, ownerId: string, websiteId: string): Promise<WebsiteRow> {
  const website = await findOwnedWebsite(db, ownerId, websiteId);
  if (!website) throw new NotFound('There is no such site among yours.');
  return website;
}

export function ownedWebsites(db: Db, ownerId: string): Promise<WebsiteRow[]> {
  return listOwnedWebsites(db, ownerId);
}

/**
 * The platform's WebsiteProfile (platform-surface 2.9), in its documented order. A website here
 * has no subdomain of its own, so `siteId` (the platform's site identifier) is the website id,
 * and no business location is collected, so both parts of `location` are null.
 */
export function websiteResponse(website: WebsiteRow, baseUrl: string) {
  return {
    id: website.id,
    siteId: website.id,
    title: website.title,
    url: websiteUrl(baseUrl, website.id),
    currency: website.currency,
    language: website.language,
    timeZone: website.time_zone,
    measurementStandard: website.measurement_standard,
    location: { country: null, region: null },
  };
}
