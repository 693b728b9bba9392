import fc from 'fast-check';

/** The subset of JSON Schema that openapi.json uses for request bodies. */
export interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  maxProperties?: number;
  additionalProperties?: boolean | JsonSchema;
  description?: string;
}

/** Strings for a field of this name and schema: what a client would send, or what it gets nearly right. */
export type StringHints = (name: string, schema: JsonSchema) => fc.Arbitrary<string> | undefined;

// Text that JSON.stringify cannot produce (1e999, -0, 100 000 nested arrays) is spliced in after it.
const RAW = '\u0001raw:';
const raw = (text: string) => `${RAW}${text}\u0001`;
export const serialize = (value: unknown): string =>
  JSON.stringify(value).replace(/"\\u0001raw:(.*?)\\u0001"/gs, (_m, text: string) => JSON.parse(`"${text}"`));

/** One of `arb` or nothing, mostly nothing: optional fields stay out of each other's way. */
const sometimes = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });

/** Bodies that a client following the schema could send: right types, bounds and hinted values, small. */
export function validish(schema: JsonSchema, name: string, hints: StringHints): fc.Arbitrary<unknown> {
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => validish(s, name, hints)));
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case 'object': {
      const props = schema.properties ?? {};
      const required = new Set(schema.required ?? []);
      // A change-wrapper's value is the field itself, so it gets the field's hints.
      const nameOf = (key: string) => (key === 'value' && 'present' in props ? name : key);
      const fields = Object.entries(props).map(([k, s]) => {
        const value = validish(s, nameOf(k), hints);
        return (required.has(k) ? value : sometimes(value)).map((v) => [k, v] as const);
      });
      const extra =
        typeof schema.additionalProperties === 'object'
          ? fc.dictionary(
              hints(`${name}[key]`, {}) ?? fc.string({ minLength: 1, maxLength: 8 }),
              validish(schema.additionalProperties, name, hints),
              { maxKeys: Math.min(schema.maxProperties ?? 1, 1) },
            )
          : fc.constant({});
      return fc
        .tuple(extra, ...fields)
        .map(([e, ...kv]) => ({ ...e, ...Object.fromEntries(kv.filter(([, v]) => v !== undefined)) }));
    }
    case 'array':
      return fc.array(validish(schema.items ?? {}, name, hints), {
        minLength: Math.min(schema.minItems ?? 1, 1),
        maxLength: Math.min(schema.maxItems ?? 2, 2),
      });
    case 'string':
      return (
        hints(name, schema) ??
        fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 24, 24) })
      );
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? -1000;
      const max = Math.min(schema.maximum ?? 1000, min + 1000);
      const whole = fc.integer({ min: Math.ceil(min), max: Math.floor(max) });
      if (schema.type === 'integer') return whole;
      return fc.oneof(whole, fc.double({ min, max, noNaN: true, noDefaultInfinity: true }));
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

type Key = string | number;
type Mutation = [label: string, change: (old: unknown) => unknown];
const REMOVE = Symbol('remove');

function pathsOf(value: unknown, at: Key[] = [], out: Key[][] = []): Key[][] {
  out.push(at);
  if (Array.isArray(value)) value.forEach((v, i) => pathsOf(v, [...at, i], out));
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) pathsOf(v, [...at, k], out);
  return out;
}

function changeAt(root: unknown, path: Key[], change: (old: unknown) => unknown): unknown {
  if (path.length === 0) {
    const changed = change(root);
    return changed === REMOVE ? {} : changed;
  }
  const copy = structuredClone(root) as Record<Key, unknown>;
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<Key, unknown>;
  const last = path.at(-1)!;
  const changed = change(parent[last]);
  if (changed !== REMOVE) parent[last] = changed;
  else if (Array.isArray(parent)) parent.splice(Number(last), 1);
  else delete parent[last];
  return copy;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const always =
  (label: string) =>
  (value: unknown): Mutation => [label, () => value];

const mutations = (near: fc.Arbitrary<string>): fc.Arbitrary<Mutation> =>
  fc.oneof(
    near.map(always('near miss')),
    fc.constant<Mutation>(['null', () => null]),
    fc.constant<Mutation>(['removed', () => REMOVE]),
    fc.constantFrom<unknown>(0, -1, 1.5, true, 'text', [], {}, [null], { a: 1 }).map(always('wrong type')),
    fc
      .constantFrom<unknown>(-1, -2147483649, 2147483648, 1e308, -1e308, 0.5, 5e-324)
      .map(always('number out of bounds')),
    fc
      .constantFrom('1e999', '-1e999', '-0', '9007199254740993', '123456789012345678901234567890')
      .map((text) => always('number out of bounds')(raw(text))),
    fc
      .constantFrom('\u0000', 'a\u0000b')
      .map((nul): Mutation => ['NUL', (old) => (typeof old === 'string' ? `${old}${nul}` : nul)]),
    fc
      .constantFrom(61, 101, 201, 1001, 4097, 102_401, 1_100_000)
      .map((n) => always('long string')('x'.repeat(n))),
    fc
      .constantFrom(
        '\ud800',
        '\udfff',
        '😀'.repeat(70),
        '   padded  ',
        '\u202e',
        '\t\n',
        '<script>x</script>',
        'ÿ',
        '%00',
      )
      .map(always('odd string')),
    fc
      .constantFrom(1_000, 10_000, 100_000)
      .map((d) => always('deep nesting')(raw('['.repeat(d) + ']'.repeat(d)))),
    fc.constantFrom(51, 101, 1_000, 10_000).map((n): Mutation => [
      'huge array',
      (old) => {
        const item = Array.isArray(old) && old.length ? serialize(old[0]) : '"a"';
        return raw(
          `[${Array(n)
            .fill(item.length < 200 ? item : '1')
            .join(',')}]`,
        );
      },
    ]),
    fc
      .constantFrom('unknownField', '__proto__', 'constructor', 'a\u0000b', '')
      .map((k): Mutation => [
        'unknown field',
        (old) => (isObject(old) ? { ...old, [k]: { x: 1 } } : { [k]: old }),
      ]),
    fc.constantFrom<Mutation>(
      ['change wrapper', (old) => ({ present: true, value: old })],
      ['change wrapper', () => ({ present: false })],
      ['change wrapper', () => ({ present: true })],
      ['change wrapper', (old) => ({ present: 'true', value: old })],
      ['change wrapper', (old) => ({ present: true, value: old, extra: 1 })],
      ['change wrapper', (old) => ({ present: false, value: old })],
      ['change wrapper', (old) => ({ value: old })],
    ),
    fc.constantFrom<unknown>({}, []).map(always('emptied')),
  );

/** The field at `path` of a body of `schema`: its name and schema, through wrappers, items and anyOf. */
function fieldAt(schema: JsonSchema, path: Key[]): { name: string; schema: JsonSchema } {
  let at: JsonSchema = schema;
  let name = '';
  for (const key of path) {
    const branches = at.anyOf ?? [at];
    const next =
      typeof key === 'number'
        ? branches.find((b) => b.items)?.items
        : (branches.find((b) => b.properties && Object.hasOwn(b.properties, key))?.properties?.[key] ??
          branches.map((b) => b.additionalProperties).find((a) => typeof a === 'object'));
    if (typeof key === 'string' && key !== 'value') name = key;
    at = next ?? {};
  }
  return { name, schema: at };
}

/** A schema-following body with exactly one value changed somewhere in it. */
export function mutated(
  schema: JsonSchema,
  hints: StringHints,
  near: StringHints,
): fc.Arbitrary<{ value: unknown; label: string }> {
  // One set of mutations for each set of near misses (ids for id fields, text for the rest), built once.
  const built = new Map<fc.Arbitrary<string>, fc.Arbitrary<Mutation>>();
  const mutationsOf = (misses: fc.Arbitrary<string>) =>
    built.get(misses) ?? built.set(misses, mutations(misses)).get(misses)!;
  return validish(schema, '', hints).chain((value) => {
    const paths = pathsOf(value);
    return fc.integer({ min: 0, max: paths.length - 1 }).chain((i) => {
      const field = fieldAt(schema, paths[i]!);
      const misses = near(field.name, field.schema) ?? fc.constant('');
      return mutationsOf(misses).map(([label, change]) => ({
        value: changeAt(value, paths[i]!, change),
        label: `${label} at $${paths[i]!.map((k) => `.${k}`).join('')}`,
      }));
    });
  });
}
