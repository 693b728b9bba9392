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

/** Error responses documented on every API route. */
export function errorResponses(...statuses: number[]) {
  return Object.fromEntries(statuses.map((s) => [s, ErrorBody]));
}
