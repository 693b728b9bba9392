/** What the log keeps of a body: 16 KB, the rest cut off (and the cut marked). */
export const BODY_LIMIT_BYTES = 16 * 1024;
/** Texts longer than this are cut first and redacted as text (storedBody). */
const LONG_TEXT = 4 * BODY_LIMIT_BYTES;

export const REDACTED = '[redacted]';

/** Last words of a key that name a secret: `access_token`, `clientSecret`, `password`, `cvc`... */
const SECRET_WORDS = new Set(['token', 'secret', 'password', 'passwd', 'passphrase', 'cvc', 'cvv', 'cvv2']);
/** Whole keys that hold a secret though their last word does not say so. */
const SECRET_KEYS = new Set(['code', 'code_verifier', 'card_number', 'api_key', 'apikey', 'pan']);

/** `clientSecret`, `client-secret` and `client_secret` alike, as words. */
function words(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/**
 * The answers of isSecretKey by key. A logged body names the same few keys again and again (a page
 * of products: `id`, `name`, `sku`... hundreds of times), and working one out costs far more than
 * looking it up; bounded, since keys come from requests.
 */
const known = new Map<string, boolean>();
const KNOWN_KEYS = 2000;

/** Whether the value of `key` is a secret the log must not keep. */
export function isSecretKey(key: string): boolean {
  let secret = known.get(key);
  if (secret === undefined) {
    secret = namesSecret(key);
    if (known.size >= KNOWN_KEYS) known.clear();
    known.set(key, secret);
  }
  return secret;
}

function namesSecret(key: string): boolean {
  const parts = words(key);
  const last = parts.at(-1);
  if (last === undefined) return false;
  if (SECRET_WORDS.has(last)) return true;
  const joined = parts.join('_');
  return SECRET_KEYS.has(joined) || joined.endsWith('card_number') || joined.endsWith('api_key');
}

/** The Luhn check of a card number's digits. */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** A run of 13 to 19 digits, single spaces or dashes allowed between them (4111 1111 1111 1111). */
const DIGIT_RUN = /(?<!\d)\d(?:[ -]?\d){12,18}(?!\d)/g;

/** Card numbers in a text: any run of 13–19 digits that passes the Luhn check. */
export function redactCardNumbers(text: string): string {
  if (!/\d{4}/.test(text)) return text;
  return text.replace(DIGIT_RUN, (run) => {
    const digits = run.replace(/[ -]/g, '');
    return digits.length >= 13 && digits.length <= 19 && passesLuhn(digits) ? REDACTED : run;
  });
}

/** A parsed body with every secret replaced: by the key's name, and card numbers anywhere. */
export function redactValue(value: unknown): unknown {
  if (typeof value === 'string') return redactCardNumbers(value);
  if (typeof value === 'number') {
    return Number.isInteger(value) && redactCardNumbers(String(value)) !== String(value) ? REDACTED : value;
  }
  if (Array.isArray(value)) return value.map(redactValue);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      out[key] = isSecretKey(key) && inner !== null && inner !== '' ? REDACTED : redactValue(inner);
    }
    return out;
  }
  return value;
}

/** `key=value` pairs of a form or query text whose key names a secret. */
const FORM_PAIR = /(^|[&?;\s])([^=&?;\s]+)=([^&;\s]*)/g;

/** `"key": "value"` or `"key": 123` in JSON text, the value's string possibly cut short at the end. */
const JSON_PAIR = /"((?:[^"\\]|\\.){1,100})"(\s*:\s*)("(?:[^"\\]|\\.)*(?:"|$)|-?\d+)/g;

/**
 * A text body: JSON is redacted by its keys; any other text (JSON cut short among it) by its
 * `"key": value` and `key=value` pairs whose key names a secret, and by card numbers. `whole`
 * false: the text is the start of a longer body, which no JSON parser would take, so none tries.
 */
export function redactText(text: string, whole = true): string {
  const trimmed = text.trimStart();
  if (whole && (trimmed.startsWith('{') || trimmed.startsWith('['))) {
    try {
      return JSON.stringify(redactValue(JSON.parse(text)));
    } catch {
      // not JSON after all: redacted as text below
    }
  }
  const json = text.includes('"')
    ? text.replace(JSON_PAIR, (all, key: string, colon: string) =>
        isSecretKey(key) ? `"${key}"${colon}"${REDACTED}"` : all,
      )
    : text;
  const pairs = json.includes('=')
    ? json.replace(FORM_PAIR, (all, lead: string, key: string) => {
        let name = key;
        try {
          name = decodeURIComponent(key);
        } catch {
          // the key as sent
        }
        return isSecretKey(name) ? `${lead}${key}=${REDACTED}` : all;
      })
    : json;
  return redactCardNumbers(pairs);
}

export interface StoredBody {
  text: string | null;
  cut: boolean;
}

/**
 * A body as the log stores it: nothing for none, secrets redacted, then cut to 16 KB (at a whole
 * character). Objects are bodies Fastify parsed (JSON, forms); text and Buffers are as sent.
 */
export function storedBody(body: unknown): StoredBody {
  if (body === undefined || body === null || body === '') return { text: null, cut: false };
  let text: string;
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    // A long answer (a page of products) is cut before it is redacted, as text: parsing all of
    // it to keep 16 KB cost more than the request it logs.
    if (Buffer.isBuffer(body) && body.length > LONG_TEXT) {
      return { text: cut(redactText(firstBytes(body), false)).text, cut: true };
    }
    const raw = typeof body === 'string' ? body : body.toString('utf8');
    if (raw.length > LONG_TEXT) {
      const kept = cut(raw);
      return { text: cut(redactText(kept.text!, false)).text, cut: true };
    }
    text = redactText(raw);
  } else if (typeof body === 'object' && typeof (body as { pipe?: unknown }).pipe === 'function')
    return { text: '[stream]', cut: false };
  else text = JSON.stringify(redactValue(body)) ?? String(body);
  return cut(text);
}

function cut(text: string): StoredBody {
  // A character is at most 4 bytes: a text of up to a quarter of the limit fits whatever it holds.
  if (text.length <= BODY_LIMIT_BYTES / 4 || Buffer.byteLength(text) <= BODY_LIMIT_BYTES) {
    return { text, cut: false };
  }
  return { text: firstBytes(Buffer.from(text)), cut: true };
}

/** The text of the first BODY_LIMIT_BYTES bytes, read from the bytes themselves: no copy of the rest. */
function firstBytes(bytes: Buffer): string {
  // Drops a character whose bytes the cut split (decoded as U+FFFD).
  return bytes
    .subarray(0, BODY_LIMIT_BYTES)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
}
