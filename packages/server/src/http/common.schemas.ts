import { Type } from 'typebox';

/** The error body of every commerce API error (api-details 1). */
export const ErrorBody = Type.Object({
  type: Type.String(),
  subtype: Type.Union([Type.String(), Type.Null()]),
  message: Type.String(),
  details: Type.Null(),
  contextId: Type.String(),
});

export const Pagination = Type.Object({
  hasNextPage: Type.Boolean(),
  nextPageCursor: Type.Union([Type.String(), Type.Null()]),
  nextPageUrl: Type.Union([Type.String(), Type.Null()]),
});

export const Money = Type.Object({
  currency: Type.String({
    description: 'ISO 4217 code; must be the website currency',
    minLength: 3,
    maxLength: 3,
  }),
  value: Type.String({
    description: 'decimal string in the currency precision, 0 to 1,000,000',
    maxLength: 20,
  }),
});

/**
 * Money in a request: the wire's strings (`{"currency":"USD","value":"12.95"}`), or the number and
 * currency object of clients generated from the platform's API document
 * (`{"currency":{"currencyCode":"USD"},"value":12.95}`, platform-surface 0.4). Both become the
 * same minor units in shared/money.ts (toMinorUnits); answers always carry strings (Money).
 */
export const MoneyInput = Type.Object({
  currency: Type.Union(
    [
      Type.String({ maxLength: 3 }),
      Type.Object({ currencyCode: Type.String({ maxLength: 3 }) }, { additionalProperties: true }),
    ],
    { description: 'ISO 4217 code, or an object with currencyCode; must be the website currency' },
  ),
  value: Type.Union([Type.String({ maxLength: 20 }), Type.Number()], {
    description: 'a decimal in the currency precision, "20.00" (a number is accepted too), 0 to 1,000,000',
  }),
});

/** Error responses documented on every API route. */
export function errorResponses(...statuses: number[]) {
  return Object.fromEntries(statuses.map((s) => [s, ErrorBody]));
}
