/** A change-wrapper as the spec's update bodies carry it: `{ present, value }`. */
function isWrapper(value: unknown): value is { present: boolean; value?: unknown } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return (
    typeof (value as { present?: unknown }).present === 'boolean' &&
    keys.every((k) => k === 'present' || k === 'value')
  );
}

type Unwrapped<T> = T extends { present: true; value: infer V }
  ? V
  : T extends { present: false }
    ? never
    : T;

/**
 * Turns an update body whose fields are plain or wrapped into plain fields; a field wrapped with
 * `present: false` is dropped, as if it had been left out. The route schema has validated both forms.
 */
export function unwrapChanges<T extends object>(body: T): { [K in keyof T]?: Unwrapped<T[K]> } {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined) continue;
    if (isWrapper(value)) {
      if (value.present) out[key] = value.value;
    } else {
      out[key] = value;
    }
  }
  return out as { [K in keyof T]?: Unwrapped<T[K]> };
}
