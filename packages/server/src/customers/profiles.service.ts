import { fromMinorUnits } from '../shared/money.ts';
import type { Clock } from '../shared/clock.ts';
import type { Db } from '../db/database.ts';
import type { AddressJson } from '../shared/order-model.ts';
import { NotFound, ValidationError } from '../shared/errors.ts';
import { OBJECT_ID, type Ids } from '../shared/ids.ts';
import { pagination, type CursorCodec, type Pagination } from '../pagination/cursor.ts';
import * as repo from './profiles.repo.ts';
import { SORT_FIELDS, type ListProfilesQueryT, type ProfileT, type SortField } from './profiles.schemas.ts';

/** Customer profiles (platform-surface 2.3): one per buyer e-mail of a website, kept by its orders. */

export const PAGE_SIZE = 50;
export const MAX_IDS = 50;
const CURSOR_WITH_OTHERS = 'Cursor cannot be set while other parameters are present.';

export interface Buyer {
  email: string;
  firstName: string | null;
  lastName: string | null;
  address: AddressJson | null;
  orderTotalMinor: number;
  placedOn: Date;
}

/**
 * Counts an order into its buyer's profile, creating the profile on the buyer's first order;
 * returns the profile id (the order's customerId). Call it in the order's transaction.
 */
export async function recordBuyer(
  trx: Db,
  deps: { ids: Ids; clock: Clock },
  websiteId: string,
  buyer: Buyer,
): Promise<string> {
  return (await upsertBuyerProfile(trx, deps, websiteId, buyer)).id;
}

/** recordBuyer, saying whether the profile was made by this order (its contact is new). */
export async function upsertBuyerProfile(
  trx: Db,
  deps: { ids: Ids; clock: Clock },
  websiteId: string,
  buyer: Buyer,
): Promise<{ id: string; inserted: boolean }> {
  const now = deps.clock.now(websiteId);
  return repo.upsertBuyer(trx, {
    id: deps.ids.objectId(),
    website_id: websiteId,
    email: buyer.email,
    first_name: buyer.firstName ?? '',
    last_name: buyer.lastName ?? '',
    has_account: false,
    accepts_marketing: false,
    address: buyer.address,
    order_count: 1,
    total_order_minor: buyer.orderTotalMinor,
    total_refund_minor: 0,
    first_order_on: buyer.placedOn,
    last_order_on: buyer.placedOn,
    created_on: now,
    locale: null,
    email_created_on: now,
    marketing_joined_on: null,
    marketing_left_on: null,
  });
}

function toProfile(row: repo.ProfileRow): ProfileT {
  const money = (minor: number) => fromMinorUnits(minor, row.currency);
  const a = row.address;
  return {
    id: row.id,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    hasAccount: row.has_account,
    isCustomer: row.order_count > 0,
    createdOn: row.created_on_text,
    // Rebuilt field by field: jsonb keeps keys in its own order, not the wire's.
    address: a && {
      firstName: a.firstName ?? null,
      lastName: a.lastName ?? null,
      address1: a.address1 ?? null,
      address2: a.address2 ?? null,
      city: a.city ?? null,
      state: a.state ?? null,
      countryCode: a.countryCode ?? null,
      postalCode: a.postalCode ?? null,
      phone: a.phone ?? null,
    },
    acceptsMarketing: row.accepts_marketing,
    // Donations are not taken by Emporium: their part is always empty.
    transactionsSummary: {
      firstOrderSubmittedOn: row.first_order_on?.toISOString() ?? null,
      lastOrderSubmittedOn: row.last_order_on?.toISOString() ?? null,
      orderCount: row.order_count,
      totalOrderAmount: money(row.total_order_minor),
      totalRefundAmount: money(row.total_refund_minor),
      firstDonationSubmittedOn: null,
      lastDonationSubmittedOn: null,
      donationCount: 0,
      totalDonationAmount: money(0),
    },
  };
}

/** Profiles by id, in the order asked; any id missing, malformed or of another website is a 404. */
export async function getProfiles(deps: { db: Db }, websiteId: string, ids: string[]): Promise<ProfileT[]> {
  if (ids.length === 0 || ids.some((id) => id === ''))
    throw new ValidationError('profileIds: one or more profile ids, comma-separated');
  const wanted = ids.map((id) => id.toLowerCase());
  const unique = [...new Set(wanted)];
  if (unique.length > MAX_IDS) throw new ValidationError(`profileIds: at most ${MAX_IDS} ids a request`);
  const rows = await repo.selectProfiles(
    deps.db,
    websiteId,
    unique.filter((id) => OBJECT_ID.test(id)),
  );
  const found = new Map(rows.map((row) => [row.id, toProfile(row)]));
  const missing = unique.find((id) => !found.has(id));
  if (missing !== undefined) throw new NotFound(`profile not found: ${missing}`);
  return wanted.map((id) => found.get(id)!);
}

/** What a cursor remembers: the last position seen, the sort and the filters of the first request. */
interface ProfileCursor {
  w: string;
  s: SortField;
  d: boolean;
  k: string;
  i: string;
  c?: true;
  h?: true;
  e?: string;
}

/** An e-mail sent encoded once more than the query string needs (`test%2540x.com`) is decoded. */
function emailValue(value: string): string {
  if (value.includes('@')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** `isCustomer,true;hasAccount,true` or `email,<address>` (platform-surface 2.3.1). */
function parseFilter(text: string): Pick<repo.ProfileFilter, 'isCustomer' | 'hasAccount' | 'email'> {
  const filter: Pick<repo.ProfileFilter, 'isCustomer' | 'hasAccount' | 'email'> = {};
  for (const pair of text.split(';').filter((p) => p.trim() !== '')) {
    const comma = pair.indexOf(',');
    const name = (comma < 0 ? pair : pair.slice(0, comma)).trim();
    const value = comma < 0 ? '' : pair.slice(comma + 1).trim();
    if (name === 'isCustomer' || name === 'hasAccount') {
      if (value !== 'true') throw new ValidationError(`filter: ${name} supports only the value true`);
      filter[name] = true;
    } else if (name === 'email') {
      if (value === '')
        throw new ValidationError('filter: email needs an address, as email,name@example.com');
      filter.email = emailValue(value);
    } else {
      throw new ValidationError(`filter: unknown filter "${name}"; use isCustomer, hasAccount or email`);
    }
  }
  return filter;
}

function parseListQuery(
  query: ListProfilesQueryT,
  cursors: CursorCodec,
  websiteId: string,
): repo.ProfileFilter {
  const present = (v: string | undefined): v is string => v !== undefined && v !== '';
  const { cursor, filter: text, email, sortField, sortDirection } = query;
  if (present(cursor)) {
    if (present(text) || present(email) || present(sortField) || present(sortDirection)) {
      throw new ValidationError(CURSOR_WITH_OTHERS);
    }
    const c = cursors.decode<ProfileCursor>('profiles', cursor);
    if (
      c.w !== websiteId ||
      !SORT_FIELDS.includes(c.s) ||
      typeof c.d !== 'boolean' ||
      typeof c.k !== 'string' ||
      typeof c.i !== 'string'
    ) {
      throw new ValidationError('cursor: not a cursor returned by this API');
    }
    return {
      sortField: c.s,
      descending: c.d,
      after: { key: c.k, id: c.i },
      isCustomer: c.c,
      hasAccount: c.h,
      email: c.e,
    };
  }
  const filter: repo.ProfileFilter = {
    ...(present(text) ? parseFilter(text) : {}),
    sortField: sortField || 'id',
    descending: sortDirection !== 'asc',
  };
  if (present(email)) {
    if (filter.email !== undefined) {
      throw new ValidationError(
        'email: give the address either as the email parameter or in filter, not both',
      );
    }
    filter.email = emailValue(email);
  }
  if (filter.email !== undefined && (filter.isCustomer || filter.hasAccount)) {
    throw new ValidationError('filter: email cannot be combined with isCustomer or hasAccount');
  }
  return filter;
}

/** A page of the website's profiles in the order asked: by default id descending (platform-surface 2.3.1). */
export async function listProfiles(
  deps: { db: Db; cursors: CursorCodec },
  websiteId: string,
  query: ListProfilesQueryT,
  pageUrl: string,
): Promise<{ profiles: ProfileT[]; pagination: Pagination }> {
  const filter = parseListQuery(query, deps.cursors, websiteId);
  const rows = await repo.selectProfilePage(deps.db, websiteId, filter, PAGE_SIZE + 1);
  const page = rows.slice(0, PAGE_SIZE);
  const last = page[page.length - 1];
  let nextCursor: string | null = null;
  if (rows.length > PAGE_SIZE && last) {
    const cursor: ProfileCursor = {
      w: websiteId,
      s: filter.sortField,
      d: filter.descending,
      k: last.sort_key,
      i: last.id,
    };
    if (filter.isCustomer) cursor.c = true;
    if (filter.hasAccount) cursor.h = true;
    if (filter.email !== undefined) cursor.e = filter.email;
    nextCursor = deps.cursors.encode('profiles', cursor);
  }
  return { profiles: page.map(toProfile), pagination: pagination(nextCursor, pageUrl) };
}
