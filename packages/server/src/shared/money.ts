import { ValidationError } from './errors.ts';

/**
 * ISO 4217 currencies and their minor-unit exponents. Money is kept as integer minor units and
 * rendered as a decimal string in the currency's precision (api-details 3: Money).
 */
const ZERO_DECIMAL = 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF';
const THREE_DECIMAL = 'BHD IQD JOD KWD LYD OMR TND';
const TWO_DECIMAL =
  'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BRL BSD BTN BWP BYN BZD CAD ' +
  'CDF CHF CNY COP CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD ' +
  'HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD ' +
  'MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON ' +
  'RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD ' +
  'TZS UAH USD UYU UZS VES WST XCD YER ZAR ZMW ZWL';

const EXPONENTS = new Map<string, number>([
  ...ZERO_DECIMAL.split(' ').map((c) => [c, 0] as const),
  ...TWO_DECIMAL.split(' ').map((c) => [c, 2] as const),
  ...THREE_DECIMAL.split(' ').map((c) => [c, 3] as const),
]);

const MAX_MAJOR = 1_000_000;
const DECIMAL = /^(\d{1,7})(?:\.(\d+))?$/;

export interface Money {
  currency: string;
  value: string;
}

export function isCurrency(code: string): boolean {
  return EXPONENTS.has(code);
}

export function exponent(currency: string): number {
  const e = EXPONENTS.get(currency);
  if (e === undefined) throw new Error(`unknown currency ${currency}`);
  return e;
}

/** Money as a request may send it: http/common.schemas.ts, MoneyInput. */
export interface MoneyInput {
  currency: string | { currencyCode: string };
  value: string | number;
}

/**
 * Parses a Money input, in either of its forms, into minor units, enforcing the website currency
 * and the bounds: the one place where a request's money is read. A number is read as the decimal
 * JavaScript writes for it (12.5 as "12.5"); one that would need an exponent is refused.
 */
export function toMinorUnits(input: MoneyInput, websiteCurrency: string, field: string): number {
  const money: Money = {
    currency: typeof input.currency === 'string' ? input.currency : input.currency.currencyCode,
    value: typeof input.value === 'number' ? String(input.value) : input.value,
  };
  if (money.currency !== websiteCurrency) {
    throw new ValidationError(
      `${field}.currency: must be the website currency ${websiteCurrency}, got "${money.currency}"`,
      'CURRENCY_MISMATCH',
    );
  }
  const e = exponent(websiteCurrency);
  const match = DECIMAL.exec(money.value);
  if (!match) throw new ValidationError(`${field}.value: must be a decimal string such as "12.95"`);
  const [, whole, fraction = ''] = match;
  if (fraction.length > e) {
    throw new ValidationError(`${field}.value: ${websiteCurrency} allows at most ${e} decimal places`);
  }
  const minor = Number(whole) * 10 ** e + Number(fraction.padEnd(e, '0') || '0');
  if (minor > MAX_MAJOR * 10 ** e) throw new ValidationError(`${field}.value: at most ${MAX_MAJOR}`);
  return minor;
}

export function fromMinorUnits(minor: number, currency: string): Money {
  // A net can be below zero (a payment refunded in full nets minus its fee): the sign goes first,
  // so -88 cents is "-0.88", not "-.88".
  if (minor < 0) return { currency, value: `-${fromMinorUnits(-minor, currency).value}` };
  const e = exponent(currency);
  if (e === 0) return { currency, value: String(minor) };
  const text = String(minor).padStart(e + 1, '0');
  return { currency, value: `${text.slice(0, -e)}.${text.slice(-e)}` };
}

const SIGNED_DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * An exact decimal string (a sum the database made of Money values) in minor units of the
 * currency, without the bounds of one amount; a string with more decimals than the currency has,
 * other than zeros, is an error of the caller.
 */
export function decimalToMinorUnits(text: string, currency: string): number {
  const e = exponent(currency);
  const match = SIGNED_DECIMAL.exec(text);
  if (!match || /[1-9]/.test((match[3] ?? '').slice(e))) {
    throw new Error(`not an amount of ${currency}: ${text}`);
  }
  const [, sign, whole = '', fraction = ''] = match;
  const minor = BigInt(whole + fraction.slice(0, e).padEnd(e, '0'));
  return Number(sign === '-' ? -minor : minor);
}

/** One major unit in minor units: 100 for USD, 1 for JPY, 1000 for KWD. */
export const majorUnit = (currency: string) => toMinorUnits({ currency, value: '1' }, currency, 'currency');
