import fc from 'fast-check';
import type { JsonSchema } from './json.ts';

export const KINDS = ['product', 'variant', 'image', 'storePage', 'subscription', 'website'] as const;
export type Kind = (typeof KINDS)[number];
export type Ids = Record<Kind, string[]>;

/** What the fuzzer knows of the two websites when it builds requests. */
export interface Known {
  own: Ids;
  foreign: Ids;
  /** A's products, each with its own variants and images: ids that belong together in one path. */
  families: Partial<Ids>[];
  /** Page cursors of every list, of both websites. */
  cursors: string[];
  /** Authorization header values of website A: its API key and its app's access token. */
  bearer: string[];
  /** Authorization header values of A's app for the token endpoint. */
  basic: string[];
  /** The test controls' token, where the app serves them. */
  operator?: string[];
  png: Buffer;
}

const KIND_WORDS: [RegExp, Kind][] = [
  [/variant/i, 'variant'],
  [/image/i, 'image'],
  [/store ?page/i, 'storePage'],
  [/product/i, 'product'],
  [/website/i, 'website'],
];
/** The kind of id a parameter or field holds, from its name and description; undefined: any. */
export const kindOf = (name: string, description = '') =>
  KIND_WORDS.find(([re]) => re.test(`${name} ${description}`))?.[1];
export const isId = (name: string, description = '') =>
  /(^id|Ids?|IdCsvs)$/.test(name) || /\bids?\b/i.test(description);
const all = (ids: Ids) => KINDS.flatMap((k) => ids[k]);
export const idsOf = (ids: Ids, kind: Kind | undefined) => (kind ? ids[kind] : all(ids));

export const pick = (values: readonly string[], fallback = 'ffffffffffffffffffffffff') =>
  fc.constantFrom(...(values.length ? values : [fallback]));

export const encoded = (s: string) => {
  try {
    return encodeURIComponent(s);
  } catch {
    // A lone surrogate has no UTF-8; send what a lenient encoder would.
    return '%ED%A0%80';
  }
};

/** Ids that are wrong here: B's (of the kind asked, when known), A's of any kind, and ids of no one. */
export function strangerIds(known: Known, kind?: Kind): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: pick(idsOf(known.foreign, kind)) },
    { weight: 1, arbitrary: pick(idsOf(known.own, undefined)) },
    { weight: 1, arbitrary: fc.oneof(fc.uuid(), fc.stringMatching(/^[0-9a-f]{24}$/)) },
  );
}

/** Segments and values that have broken parsers, routers and databases before; NUL the most. */
export const oddText = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom('%00', 'a%00b', '%00%00') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '%zz',
      '%',
      '%E2%82',
      '%ED%A0%80',
      '%FF',
      '%2F',
      '..',
      ',',
      ',,',
      '%2C',
      'null',
      '-1',
      '1e3',
      '__proto__',
      'constructor',
      '%C3%BC',
      'ü',
      '😀',
      'a'.repeat(4097),
      'f'.repeat(8000),
    ),
  },
);
export const randomText = fc
  .oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }))
  .map(encoded);

const TOPICS = ['order.create', 'order.update', 'extension.uninstall', 'product.create', 'product.delete'];
/** Values a client following the documentation sends for a query parameter or field of this name. */
const NAMED: Record<string, readonly string[]> = {
  type: ['PHYSICAL', 'DIGITAL', 'PHYSICAL,DIGITAL', 'PHYSICAL%2CDIGITAL'],
  format: ['100w', '500w', '2500w'],
  modifiedAfter: ['2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00Z'],
  modifiedBefore: ['2030-01-01T00:00:00.000Z', '2026-06-01T12:00:00Z'],
  currency: ['USD'],
  endpointUrl: ['https://hooks.example.com/fuzz', 'https://hooks.example.com/other?x=1'],
  topic: TOPICS,
  topics: TOPICS,
  grant_type: ['authorization_code', 'refresh_token'],
  redirect_uri: ['https://app.example.com/callback'],
  // The variant attribute the fixtures' products have, so that variant bodies can match it.
  'attributes[key]': ['Size'],
};

/** Near misses of those: what a client gets slightly wrong. */
const NEAR: Record<string, readonly string[]> = {
  type: [',', ',,', 'PHYSICAL,', ',DIGITAL', 'SERVICE', 'physical', 'PHYSICAL,,DIGITAL'],
  format: ['0w', 'w', '-1w', '1e3w', '99999999999999999999w', 'original', '500W'],
  modifiedAfter: [
    '2026-02-30T00:00:00.000Z',
    '0000-01-01T00:00:00.000Z',
    '-000001-01-01T00:00:00.000Z',
    '+275760-09-13T00:00:00.000Z',
    '9999-12-31T23:59:59.999Z',
    '1767225600000',
  ],
  currency: ['EUR', 'usd', 'XXX', 'US$'],
  decimal: ['12.345', '-1', '1e3', ' 5 ', '1000000.01', '0x10', '1,5', 'NaN', 'Infinity', '٣'],
  endpointUrl: [
    'http://hooks.example.com/fuzz',
    'https://127.0.0.1/x',
    'https://[::1]/x',
    'https://user:pw@hooks.example.com/',
    'https://hooks.example.com:99999/',
    'ftp://hooks.example.com/',
  ],
  topic: ['nope', 'order.*', 'ORDER.CREATE'],
  grant_type: ['client_credentials', 'password', 'refresh_token '],
  query: ['a\u0000b', '%', '_', "'", '\\', 'a'.repeat(201), '<b>'],
};
NEAR.modifiedBefore = NEAR.modifiedAfter!;
NEAR.topics = NEAR.topic!;

// Names come from requests too ("constructor"), so only the tables' own entries count.
const entry = (table: Record<string, readonly string[]>, name: string) =>
  Object.hasOwn(table, name) ? table[name] : undefined;
const named = (name: string) => {
  const values = entry(NAMED, name);
  return values && fc.constantFrom(...values);
};

/** Plausible strings for a body field: A's ids of its kind, money, slugs, SKUs, the values above. */
export function stringHints(known: Known) {
  return (name: string, schema: JsonSchema): fc.Arbitrary<string> | undefined => {
    if (isId(name, schema.description)) return pick(idsOf(known.own, kindOf(name, schema.description)));
    if (/decimal/i.test(schema.description ?? ''))
      return fc.constantFrom('10.00', '0', '1000000', '12.5', '0.99');
    if (name === 'sku') return fc.stringMatching(/^FZ-[A-Z0-9]{1,12}$/);
    if (name === 'urlSlug') return fc.stringMatching(/^[a-z0-9]{1,10}(-[a-z0-9]{1,6})?$/);
    if (name === 'description')
      return fc.constantFrom('<p>Soft <b>linen</b></p>', '<a href="javascript:x">y</a>');
    return named(name);
  };
}

/** Strings nearly right for a body field: the ids of strangers in id fields, near misses in all. */
export function nearMisses(known: Known) {
  const text = fc.constantFrom(...Object.values(NEAR).flat());
  const ids = fc.oneof(strangerIds(known), text);
  return (name: string, schema: JsonSchema) => (isId(name, schema.description) ? ids : text);
}

/** A query parameter value: plausible, or (`broken`) a near miss, odd or random. */
export function queryValue(known: Known, name: string, broken: boolean): fc.Arbitrary<string> {
  const plausible =
    name === 'cursor'
      ? pick(known.cursors).map(encoded)
      : (named(name) ?? fc.stringMatching(/^[a-z0-9]{1,12}$/));
  if (!broken) return plausible;
  const values = entry(NEAR, name);
  const near = values ? [{ weight: 3, arbitrary: fc.constantFrom(...values).map(encoded) }] : [];
  return fc.oneof(...near, oddText, randomText);
}
