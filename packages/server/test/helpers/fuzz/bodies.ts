import fc from 'fast-check';
import { mutated, serialize, validish, type JsonSchema, type StringHints } from './json.ts';

export interface Body {
  payload?: string | Buffer;
  contentType?: string;
  /** What was done to the body, for the failure report. */
  label: string;
}

const JSON_TYPES = fc.oneof(
  { weight: 12, arbitrary: fc.constant('application/json') },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'Application/JSON',
      'application/json; charset=utf-16',
      'application/json, text/plain',
      'application/vnd.api+json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
      '',
      ';',
      undefined,
    ),
  },
);

const garbage = fc.oneof(
  fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
  fc.constantFrom('{', '{"a":', '[1,', 'nul', '\ufeff{}', '{"a":1}}', "{'a':1}", 'a=b&c=d', '\u0000'),
);

/** A body for an operation whose request body is JSON of `schema`: valid-ish, or `broken` somehow. */
export function jsonBody(
  schema: JsonSchema,
  hints: StringHints,
  near: StringHints,
  broken: boolean,
): fc.Arbitrary<Body> {
  if (!broken)
    return validish(schema, '', hints).map((v) => ({
      payload: serialize(v),
      contentType: 'application/json',
      label: 'valid-ish',
    }));
  const text = fc.oneof(
    {
      weight: 10,
      arbitrary: mutated(schema, hints, near).map(({ value, label }) => ({
        payload: serialize(value),
        label,
      })),
    },
    {
      weight: 4,
      arbitrary: validish(schema, '', hints).map((v) => ({ payload: serialize(v), label: 'valid-ish' })),
    },
    {
      weight: 1,
      arbitrary: validish(schema, '', hints).chain((v) =>
        fc
          .integer({ min: 0, max: Math.max(0, serialize(v).length - 1) })
          .map((n) => ({ payload: serialize(v).slice(0, n), label: 'truncated JSON' })),
      ),
    },
    { weight: 1, arbitrary: garbage.map((payload) => ({ payload, label: 'not JSON' })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('', ' ', 'null', '1', '"x"', '[]', 'true', '{}')
        .map((payload) => ({ payload, label: `top-level ${JSON.stringify(payload)}` })),
    },
  );
  return fc.oneof(
    { weight: 20, arbitrary: fc.tuple(text, JSON_TYPES).map(([b, contentType]) => ({ ...b, contentType })) },
    { weight: 1, arbitrary: fc.constant<Body>({ label: 'no body' }) },
  );
}

/** A body for an operation that documents none: a form-like object of `fields` if `wanted`, else none. */
export function looseBody(
  fields: readonly string[],
  hints: StringHints,
  wanted: boolean,
  broken: boolean,
): fc.Arbitrary<Body> {
  if (!broken) {
    if (!wanted) return fc.constant({ label: 'no body' });
    const strings = fields.map((f) => [f, hints(f, {}) ?? fc.string({ minLength: 1, maxLength: 40 })]);
    return fc.record(Object.fromEntries(strings), { requiredKeys: [] }).map((o) => ({
      payload: serialize(o),
      contentType: 'application/json',
      label: 'JSON object',
    }));
  }
  const object = fc.dictionary(
    fc.constantFrom(...fields),
    fc.oneof(fc.string(), fc.jsonValue({ maxDepth: 1 })),
  );
  const form = object.map((o) =>
    new URLSearchParams(Object.entries(o).map(([k, v]) => [k, String(v)])).toString(),
  );
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant<Body>({ label: 'no body' }) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(object, JSON_TYPES)
        .map(([o, contentType]) => ({ payload: serialize(o), contentType, label: 'JSON object' })),
    },
    {
      weight: 1,
      arbitrary: form.map((payload) => ({
        payload,
        contentType: 'application/x-www-form-urlencoded',
        label: 'form',
      })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(garbage, JSON_TYPES)
        .map(([payload, contentType]) => ({ payload, contentType, label: 'garbage' })),
    },
  );
}

interface Part {
  name: string;
  filename?: string;
  data: Buffer;
}

/** A multipart/form-data body of `parts`, as a browser or curl -F sends it. */
export function formData(boundary: string, parts: Part[]): Buffer {
  const chunks = parts.flatMap((p) => [
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"` +
        `${p.filename === undefined ? '' : `; filename="${p.filename}"`}\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    p.data,
    Buffer.from('\r\n'),
  ]);
  return Buffer.concat([...chunks, Buffer.from(`--${boundary}--\r\n`)]);
}

/** Multipart uploads of `image`: well formed, or `broken` in the ways clients and attackers break them. */
export function multipartBody(image: Buffer, broken: boolean): fc.Arbitrary<Body> {
  const b = '----fuzz7MA4YWxkTrZu0gW';
  const type = (boundary: string) => `multipart/form-data; boundary=${boundary}`;
  const file = (data: Buffer, filename = 'photo.png', name = 'file'): Part => ({ name, filename, data });
  const text = Buffer.from('this is not an image, just text');
  const whole = formData(b, [file(image)]);
  if (!broken) return fc.constant({ payload: whole, contentType: type(b), label: 'an image' });
  const cases: fc.MaybeWeightedArbitrary<Body>[] = [
    { weight: 4, arbitrary: fc.constant({ payload: whole, contentType: type(b), label: 'an image' }) },
    {
      weight: 2,
      arbitrary: fc.constant({
        payload: formData(b, [file(text)]),
        contentType: type(b),
        label: 'a text file',
      }),
    },
    fc.constant({ payload: whole, contentType: 'multipart/form-data', label: 'no boundary' }),
    fc.constant({ payload: whole, contentType: `${type(b)}; boundary=other`, label: 'two boundaries' }),
    fc.constant({ payload: whole, contentType: type(`"${b}"`), label: 'quoted boundary' }),
    fc.constant({ payload: whole, contentType: type('mismatch'), label: 'boundary not in the body' }),
    fc.constant({ payload: Buffer.alloc(0), contentType: type(b), label: 'empty' }),
    fc.constant({
      payload: formData(b, [file(image, 'photo.png', 'image')]),
      contentType: type(b),
      label: 'no part named file',
    }),
    fc.constant({
      payload: formData(b, [file(image), file(image)]),
      contentType: type(b),
      label: 'two files',
    }),
    fc.constant({
      payload: formData(b, [
        ...Array.from({ length: 25 }, (_, i) => ({ name: `f${i}`, data: text })),
        file(image),
      ]),
      contentType: type(b),
      label: '26 parts',
    }),
    fc.constant({
      payload: whole.subarray(0, whole.length - 8),
      contentType: type(b),
      label: 'no closing boundary',
    }),
    fc.constant(
      ((long) => ({
        payload: formData(long, [file(image)]),
        contentType: type(long),
        label: '3,000-character boundary',
      }))('b'.repeat(3000)),
    ),
    fc
      .integer({ min: 1, max: whole.length - 1 })
      .map((n) => ({ payload: whole.subarray(0, n), contentType: type(b), label: `cut after ${n} bytes` })),
    fc
      .constantFrom(
        '',
        '../../etc/passwd',
        'a\u0000b.png',
        `${'x'.repeat(2000)}.png`,
        'ü😀.png',
        '.png',
        'a"b.png',
      )
      .map((name) => ({
        payload: formData(b, [file(image, name)]),
        contentType: type(b),
        label: `file name ${JSON.stringify(name.slice(0, 40))}`,
      })),
    fc.constant({
      payload: Buffer.from(`--${b}\r\nno headers\r\n\r\nx\r\n--${b}--\r\n`),
      contentType: type(b),
      label: 'part without headers',
    }),
    fc.constant({
      payload: '{"file":"x"}',
      contentType: 'application/json',
      label: 'JSON instead of multipart',
    }),
  ];
  return fc.oneof(...cases);
}
