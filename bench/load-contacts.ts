/**
 * The contacts benchmark's site and data: the owner, website and API key made by the service's
 * own functions, then a bulk load of contacts (profiles rows with the contact columns of
 * migration 018) and address book entries with set-based SQL (INSERT ... SELECT FROM
 * generate_series). Every column is drawn on its own (no correlation made up between names,
 * sign-up, marketing and orders), as a real store's would be, apart from what follows from time:
 * one joins the newsletter and orders after signing up, the last order is not before the first.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { systemClock } from '../packages/server/src/shared/clock.ts';
import { openDatabase } from '../packages/server/src/db/database.ts';
import { randomIds } from '../packages/server/src/shared/ids.ts';
import { createApiKey } from '../packages/server/src/sites/api-keys.service.ts';
import { createOwner } from '../packages/server/src/sites/owners.service.ts';
import { createWebsite } from '../packages/server/src/sites/websites.service.ts';
import { definitions, dropDefinitions, session, type Definition } from './load-catalog.ts';

/** One contact in RARE_EVERY has this last name: 20 at 1M, found by `searchString`. */
export const RARE_NAME = 'Quixote';
const RARE_EVERY = 50_000;
const BATCH = 100_000;
/** Sign-ups spread over this many days before the load. */
export const SPREAD_DAYS = 1095;

const FIRST_NAMES = (
  'Ada Grace Alan Edsger Barbara Donald Frances Ken Margaret Dennis Radia Tim Sophie Linus Anita ' +
  'Niklaus John Mary Robert Patricia Michael Jennifer William Linda David Elizabeth Richard Susan ' +
  'Joseph Jessica Thomas Sarah Charles Karen Daniel Nancy Matthew Lisa Anthony Betty Mark Sandra ' +
  'Paul Ashley Steven Emily Andrew Donna Joshua Michelle Kevin Carol Brian Amanda Oliver Emma ' +
  'Noah Olivia Liam Ava Lucas Mia Hugo Chloe Louis Lea Mateo Sofia Yuki Hana Ravi Priya Chen Wei'
).split(' ');
const LAST_NAMES = (
  'Lovelace Hopper Turing Dijkstra Liskov Knuth Allen Thompson Hamilton Ritchie Perlman Berners ' +
  'Wilson Torvalds Borg Wirth Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez ' +
  'Martinez Hernandez Lopez Gonzalez Anderson Taylor Thomas Moore Jackson Martin Lee Perez White ' +
  'Harris Sanchez Clark Ramirez Lewis Robinson Walker Young King Wright Scott Torres Nguyen Hill ' +
  'Flores Green Adams Nelson Baker Hall Rivera Campbell Mitchell Carter Roberts Muller Schmidt ' +
  'Schneider Fischer Weber Meyer Wagner Becker Dubois Moreau Laurent Rossi Russo Ferrari Tanaka ' +
  'Suzuki Sato Kim Park Singh Kumar Patel Silva Santos Costa Novak Kowalski Jensen Hansen Berg'
).split(' ');
const DOMAINS = ['example.com', 'mail.example', 'inbox.example', 'post.example', 'web.example'];

export interface ContactsSite {
  websiteId: string;
  /** Scope website.contacts.read. */
  apiKey: string;
}

export async function createContactsSite(databaseUrl: string): Promise<ContactsSite> {
  const handle = openDatabase(databaseUrl, { max: 2 });
  try {
    const deps = { db: handle.db, clock: systemClock, ids: randomIds };
    const email = `bench-${randomBytes(4).toString('hex')}@example.com`;
    await createOwner(deps, { email, password: randomBytes(12).toString('base64url') });
    const { websiteId } = await createWebsite(deps, { ownerEmail: email, title: 'Bench Store' });
    const { apiKey } = await createApiKey(deps, {
      websiteId,
      name: 'Contacts benchmark',
      scopes: 'website.contacts.read',
    });
    return { websiteId, apiKey };
  } finally {
    await handle.close();
  }
}

/*
 * $1 website, $2 first row, $3 last row, $4 first names, $5 last names, $6 domains, $7 the load's
 * time. Per row, from random(): sign-up over SPREAD_DAYS; 35% accept marketing, joined 0-90 days
 * after signing up (if that is past); 45% have ordered: 1 + a geometric number more orders,
 * 10-250 a order on average, the first 0-365 days after sign-up, the last between it and now.
 */
const CONTACTS_SQL = `
INSERT INTO profiles (id, website_id, email, first_name, last_name, has_account, accepts_marketing,
  address, order_count, total_order_minor, total_refund_minor, first_order_on, last_order_on,
  created_on, locale, email_created_on, marketing_joined_on, marketing_left_on)
SELECT substr(md5($1 || ':' || i), 1, 24), $1,
  lower(f) || '.' || lower(l) || i || '@' || ($6::text[])[1 + floor(random() * array_length($6::text[], 1))::int],
  f, l, random() < 0.2, jm IS NOT NULL, NULL, oc,
  CASE WHEN oc = 0 THEN 0 ELSE (oc * (1000 + floor(random() * 24000)))::bigint END, 0,
  fo, CASE WHEN oc = 0 THEN NULL WHEN oc = 1 THEN fo ELSE fo + random() * ($7::timestamptz - fo) END,
  created, CASE WHEN random() < 0.9 THEN 'en-US' ELSE 'fr-FR' END, created, jm, NULL
FROM (
  SELECT i, created, f, l, oc,
    CASE WHEN oc > 0 THEN least(created + random() * interval '365 days', $7::timestamptz) END AS fo,
    CASE WHEN random() < 0.35 THEN nullif(least(created + random() * interval '90 days', $7::timestamptz), $7::timestamptz) END AS jm
  FROM (
    SELECT i, $7::timestamptz - random() * interval '${SPREAD_DAYS} days' AS created,
      ($4::text[])[1 + floor(random() * array_length($4::text[], 1))::int] AS f,
      CASE WHEN i % ${RARE_EVERY} = 7 THEN '${RARE_NAME}'
        ELSE ($5::text[])[1 + floor(random() * array_length($5::text[], 1))::int] END AS l,
      CASE WHEN random() < 0.45 THEN 1 + floor(ln(1 - random()) / ln(0.6))::int ELSE 0 END AS oc
    FROM generate_series($2::int, $3::int) AS i
  ) a
) b`;

/* One default shipping address for 30% of the contacts with an order, a second entry for a third of them. */
const BOOK_SQL = `
INSERT INTO address_book_entries (id, website_id, contact_id, default_shipping, first_name, last_name,
  line1, line2, city, region, postal_code, country_code, phone_number, created_on)
SELECT md5(p.id || ':' || n), p.website_id, p.id, n = 1, p.first_name, p.last_name,
  (1 + floor(random() * 400))::int || ' Market Street', NULL, 'Springfield', 'IL',
  lpad(floor(random() * 99999)::int::text, 5, '0'), 'US', '+1 217 555 0100', p.created_on + n * interval '1 day'
FROM profiles p CROSS JOIN generate_series(1, 2) AS n
WHERE p.website_id = $1 AND p.order_count > 0 AND hashtext(p.id) % 10 IN (0, 1, 2)
  AND (n = 1 OR hashtext(p.id) % 10 = 0)`;

export interface ContactsLoadReport {
  contacts: number;
  entries: number;
  /** The time the load took as "now": every time drawn is before it. */
  origin: Date;
  totalMs: number;
}

/** `count` contacts and their address books, keys and indexes rebuilt after, then VACUUM (ANALYZE). */
export async function loadContacts(
  databaseUrl: string,
  site: ContactsSite,
  count: number,
  log: (line: string) => void,
): Promise<ContactsLoadReport> {
  const started = performance.now();
  const origin = new Date();
  const a = await session(databaseUrl);
  const b = await session(databaseUrl);
  try {
    const defs = await definitions(a, ['profiles', 'address_book_entries']);
    await dropDefinitions(a, defs);
    const queue: [number, number][] = [];
    for (let first = 1; first <= count; first += BATCH)
      queue.push([first, Math.min(first + BATCH - 1, count)]);
    const insert = async (client: pg.Client) => {
      for (let batch = queue.shift(); batch; batch = queue.shift()) {
        await client.query(CONTACTS_SQL, [
          site.websiteId,
          batch[0],
          batch[1],
          FIRST_NAMES,
          LAST_NAMES,
          DOMAINS,
          origin,
        ]);
      }
    };
    await Promise.all([insert(a), insert(b)]);
    const book = await a.query(BOOK_SQL, [site.websiteId]);
    log(`  ${count} contacts and ${book.rowCount} address book entries inserted in ${secs(started)} s`);
    const builds = defs.filter((d: Definition) => d.kind !== 'f').map((d) => d.build);
    await Promise.all(
      [a, b].map(async (client, n) => {
        for (const build of builds.filter((_, i) => i % 2 === n)) await client.query(build);
      }),
    );
    for (const d of defs) if (d.attach) await a.query(d.attach);
    for (const d of defs) if (d.kind === 'f') await a.query(d.build);
    await a.query('VACUUM (ANALYZE) profiles');
    await a.query('VACUUM (ANALYZE) address_book_entries');
    log(`  keys and indexes rebuilt, VACUUM (ANALYZE) done: ${secs(started)} s in all`);
    return { contacts: count, entries: book.rowCount ?? 0, origin, totalMs: performance.now() - started };
  } finally {
    await a.end();
    await b.end();
  }
}

const secs = (from: number) => ((performance.now() - from) / 1000).toFixed(1);
