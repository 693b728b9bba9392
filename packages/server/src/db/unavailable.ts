/** Errors a database outage produces: the request may be retried, so they are a 503, not a 500. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08006',
  '53300',
]);
/**
 * The same from the pg driver, which gives them no code: a connection lost in the middle of a
 * statement, a client whose connection has died, no connection free in time.
 */
const UNAVAILABLE_MESSAGES =
  /Connection terminated|is not queryable|timeout exceeded when trying to connect/i;

/**
 * True for an error of the database being away. A transaction that ends with one may have
 * committed all the same (the connection was lost after the COMMIT reached the server): its
 * outcome is unknown, where any other error means it rolled back.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return (
    (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) || UNAVAILABLE_MESSAGES.test(error.message)
  );
}
