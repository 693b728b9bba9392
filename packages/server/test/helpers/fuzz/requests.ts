import fs from 'node:fs';
import fc from 'fast-check';
import { OPENAPI_PATH } from '../../../src/openapi.ts';
import { jsonBody, looseBody, multipartBody, type Body } from './bodies.ts';
import type { JsonSchema } from './json.ts';
import {
  idsOf,
  kindOf,
  nearMisses,
  oddText,
  pick,
  queryValue,
  randomText,
  strangerIds,
  stringHints,
  type Known,
} from './values.ts';

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  description?: string;
  schema: JsonSchema;
}

/** One method and path of openapi.json, as the fuzzer needs it. */
export interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body?: JsonSchema;
  multipart: boolean;
  auth: 'bearer' | 'basic' | 'operator' | 'none';
}

/** Every operation of the committed openapi.json, so a new route is fuzzed as soon as it is documented. */
export function operations(): Operation[] {
  const doc = JSON.parse(fs.readFileSync(OPENAPI_PATH, 'utf8'));
  return Object.entries(doc.paths as Record<string, Record<string, Record<string, unknown>>>).flatMap(
    ([path, methods]) =>
      Object.entries(methods).map(([method, op]) => {
        const security = (op.security ?? doc.security) as Record<string, unknown>[];
        const schemes = security.flatMap((s) => Object.keys(s));
        const content = (op.requestBody as { content?: Record<string, { schema: JsonSchema }> } | undefined)
          ?.content;
        return {
          method: method.toUpperCase(),
          path,
          parameters: (op.parameters ?? []) as Parameter[],
          body: content?.['application/json']?.schema,
          multipart: JSON.stringify(op).includes('multipart/form-data'),
          auth:
            schemes.length === 0
              ? 'none'
              : schemes.includes('operator')
                ? 'operator'
                : schemes.includes('bearer')
                  ? 'bearer'
                  : 'basic',
        } satisfies Operation;
      }),
  );
}

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string | undefined>;
  payload?: string | Buffer;
  /** What the request is made of, for the failure report. */
  label: string;
}

/** The fields of the only documented endpoint without a body schema that takes a body (the token endpoint). */
const TOKEN_FIELDS = ['grant_type', 'code', 'refresh_token', 'redirect_uri', 'code_verifier'];
const isList = (p: Parameter) => /comma/i.test(p.description ?? '');

/** A path parameter that is not A's id of its kind: B's ids, lists, odd and random text, up to 8,000 characters. */
function wildPathValue(known: Known, p: Parameter): fc.Arbitrary<string> {
  const kind = kindOf(p.name, p.description);
  const id = fc.oneof(pick(idsOf(known.own, kind)), strangerIds(known, kind));
  const list = isList(p)
    ? fc.oneof(
        fc
          .tuple(fc.array(id, { maxLength: 5 }), fc.constantFrom(',', '%2C', '%2c', ', ', ',,'))
          .map(([ids, sep]) => ids.join(sep)),
        id.map((i) => `${i},`),
        id.map((i) => Array(51).fill(i).join(',')),
      )
    : strangerIds(known, kind);
  // Not "." or "..": URL parsers resolve them, and the request would leave the operation for another page.
  const segment = (v: string) => !/^\.{1,2}$/.test(v);
  return fc.oneof(
    { weight: 4, arbitrary: list },
    { weight: 2, arbitrary: oddText.filter(segment) },
    { weight: 1, arbitrary: randomText.filter(segment) },
  );
}

/** Path parameters of one family of A's ids (a product, its variants and images); one of them wild if `broken`. */
function pathValues(
  known: Known,
  params: Parameter[],
  broken: 'one' | 'all' | 'none',
): fc.Arbitrary<string[]> {
  if (params.length === 0) return fc.constant([]);
  const wild = params.map((p) => wildPathValue(known, p));
  const families = known.families.length ? known.families : [known.own];
  return fc
    .tuple(fc.constantFrom(...families), fc.integer({ min: 0, max: params.length - 1 }))
    .chain(([family, b]) =>
      fc.tuple(
        ...params.map((p, i) => {
          if (broken === 'all' || (broken === 'one' && i === b)) return wild[i]!;
          const kind = kindOf(p.name, p.description);
          const own = pick(kind && family[kind]?.length ? family[kind] : idsOf(known.own, kind));
          return isList(p) ? fc.array(own, { minLength: 1, maxLength: 3 }).map((ids) => ids.join(',')) : own;
        }),
      ),
    );
}

/** Declared query parameters, each absent or plausible; `broken`, one of them (or another) set oddly. */
function queryPart(known: Known, op: Operation, broken: boolean): fc.Arbitrary<string> {
  const names = op.parameters.filter((p) => p.in === 'query').map((p) => p.name);
  const declared = fc.tuple(
    ...names.map((name) =>
      fc.oneof(
        { weight: broken ? 5 : 3, arbitrary: fc.constant([]) },
        { weight: broken ? 1 : 2, arbitrary: queryValue(known, name, false).map((v) => [`${name}=${v}`]) },
      ),
    ),
  );
  const oddName = (name: string) =>
    fc
      .array(queryValue(known, name, true), { minLength: 1, maxLength: 2 })
      .map((vs) => vs.map((v) => `${name}=${v}`));
  const undeclared = ['limit', 'id', '__proto__', 'constructor', 'type[]', 'a[b]', '%zz', ''];
  const odd = fc.oneof(
    ...names.map((name) => ({ weight: 3, arbitrary: oddName(name) })),
    ...undeclared.map((name) => ({ weight: 1, arbitrary: oddName(name) })),
  );
  return fc.tuple(declared, broken ? odd : fc.constant([])).map(([d, o]) => {
    const pairs = [...d.flat(), ...o];
    return pairs.length ? `?${pairs.join('&')}` : '';
  });
}

/** A's credential, a User-Agent and declared headers; `broken`, some of them missing or odd. */
function headersArb(
  known: Known,
  op: Operation,
  broken: boolean,
): fc.Arbitrary<Record<string, string | undefined>> {
  const own = {
    basic: known.basic,
    bearer: known.bearer,
    operator: known.operator ?? [],
    none: [],
  }[op.auth];
  const some = own[0] ?? 'Bearer x';
  const w = broken ? 1 : 0;
  const odd = fc.constantFrom(
    undefined,
    '',
    'Bearer',
    'Bearer ',
    'Bearer emp_key_',
    'Bearer emp_at_',
    'Basic',
    'Basic ###',
    `Basic ${Buffer.from(':').toString('base64')}`,
    `Basic ${Buffer.from('a:b').toString('base64')}`,
    some.toLowerCase(),
    `${some}x`,
    `${some}, ${some}`,
    `Bearer ${'a'.repeat(4000)}`,
    ...(op.auth === 'basic' ? known.bearer : known.basic),
  );
  const authorization = fc.oneof(
    { weight: 4, arbitrary: own.length ? pick(own) : fc.constant(undefined) },
    { weight: w, arbitrary: odd },
  );
  const userAgent = fc.oneof(
    { weight: 4, arbitrary: fc.constant('emporium-fuzz/1.0') },
    { weight: w, arbitrary: fc.constantFrom(undefined, '', ' ', '\t', 'x'.repeat(8000), 'Mozilla/5.0 (ÿ)') },
  );
  const declared = op.parameters
    .filter((p) => p.in === 'header')
    .map((p) =>
      fc
        .oneof(
          { weight: 4, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/) },
          { weight: w, arbitrary: fc.constant('fuzz-reused-key') },
          {
            weight: w,
            arbitrary: fc.constantFrom(undefined, '', 'a'.repeat(65), 'bad key!', 'ÿ', '../x', '%00'),
          },
        )
        .map((v): [string, string | undefined] => [p.name, v]),
    );
  const extra = !broken
    ? fc.constant(null)
    : fc.option(
        fc.constantFrom<[string, string]>(
          ['accept', 'text/html'],
          ['if-none-match', '*'],
          ['content-encoding', 'gzip'],
          ['x-forwarded-for', '::1, 10.0.0.1'],
          ['origin', 'https://evil.example'],
          ['expect', '100-continue'],
        ),
        { freq: 2 },
      );
  return fc.tuple(authorization, userAgent, fc.tuple(...declared), extra).map(([auth, ua, params, more]) => ({
    // undefined, not absent: light-my-request would otherwise send a User-Agent of its own.
    'user-agent': ua,
    ...(auth !== undefined && { authorization: auth }),
    ...Object.fromEntries(params.filter(([, v]) => v !== undefined)),
    ...(more && { [more[0]]: more[1] }),
  }));
}

const summary = (h: Record<string, string | undefined>, known: Known) =>
  Object.entries(h)
    .map(([k, v]) => {
      if (v === undefined) return `${k}: (none)`;
      const own = [...known.bearer, ...known.basic].indexOf(v);
      if (own >= 0) return `${k}: <A's credential ${own}>`;
      const shown = v.replace(/(emp_[a-z]+_)[\w-]+/g, '$1…');
      return `${k}: ${JSON.stringify(shown.length > 60 ? `${shown.slice(0, 60)}…(${v.length})` : shown)}`;
    })
    .join(', ');

type Part = 'path' | 'query' | 'headers' | 'body' | 'everything';

/**
 * Requests for one operation. Each breaks one part (path, query, headers or body) and keeps the
 * others plausible, so that a broken part reaches the code behind the checks of the others;
 * a few break everything at once, or use another method.
 */
export function requestArb(op: Operation, known: Known): fc.Arbitrary<FuzzRequest> {
  const params = op.parameters.filter((p) => p.in === 'path');
  const hints = stringHints(known);
  const body = (broken: boolean): fc.Arbitrary<Body> =>
    op.multipart
      ? multipartBody(known.png, broken)
      : op.body
        ? jsonBody(op.body, hints, nearMisses(known), broken)
        : looseBody(TOKEN_FIELDS, hints, op.method === 'POST', broken);
  // Built once: arbitraries are costly to construct, cheap to draw from.
  const both = <T>(make: (broken: boolean) => T) => ({ true: make(true), false: make(false) });
  const paths = { path: pathValues(known, params, 'one'), everything: pathValues(known, params, 'all') };
  const plausiblePath = pathValues(known, params, 'none');
  const queries = both((b) => queryPart(known, op, b));
  const headerSets = both((b) => headersArb(known, op, b));
  const bodies = both(body);
  const method = fc.oneof(
    { weight: 40, arbitrary: fc.constant(op.method) },
    fc.constantFrom('PUT', 'PATCH', 'OPTIONS'),
  );
  // Most requests break what the operation has the most of.
  const has = (n: unknown) => (n ? 4 : 1);
  const part = fc.oneof(
    { weight: params.length ? 4 : 0, arbitrary: fc.constant<Part>('path') },
    { weight: has(op.parameters.some((p) => p.in === 'query')), arbitrary: fc.constant<Part>('query') },
    { weight: 2, arbitrary: fc.constant<Part>('headers') },
    { weight: has(op.body ?? op.multipart), arbitrary: fc.constant<Part>('body') },
    { weight: 1, arbitrary: fc.constant<Part>('everything') },
  );
  return part.chain((broken) => {
    const is = (p: Part) => broken === p || broken === 'everything';
    const values = broken === 'path' || broken === 'everything' ? paths[broken] : plausiblePath;
    return fc
      .tuple(
        method,
        values,
        queries[`${is('query')}`],
        headerSets[`${is('headers')}`],
        bodies[`${is('body')}`],
      )
      .map(([m, vals, query, headers, b]) => {
        let path = op.path;
        params.forEach((p, i) => (path = path.replace(`{${p.name}}`, () => vals[i]!)));
        const all = b.contentType === undefined ? headers : { ...headers, 'content-type': b.contentType };
        const size = b.payload === undefined ? 'none' : `${b.payload.length} bytes`;
        return {
          method: m,
          url: `${path}${query}`,
          headers: all,
          payload: b.payload,
          label: `broken: ${broken}; ${summary(all, known)}; body (${size}): ${b.label}`,
        };
      });
  });
}
