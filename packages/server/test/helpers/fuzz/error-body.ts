const ERROR_KEYS = ['contextId', 'details', 'message', 'subtype', 'type'];
const OAUTH_ERROR_KEYS = ['error', 'error_description'];

/** Why a body is not the documented error body of its endpoint, or undefined when it is. */
export function errorBodyProblem(oauth: boolean, body: string): string | undefined {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(body);
  } catch {
    return 'error body is not JSON';
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return 'error body is not an object';
  const keys = Object.keys(parsed).sort();
  if (oauth) {
    const fits = OAUTH_ERROR_KEYS.every((k) => typeof parsed[k] === 'string');
    return fits && keys.join() === OAUTH_ERROR_KEYS.join() ? undefined : 'not the OAuth error body';
  }
  const fits =
    keys.join() === ERROR_KEYS.join() &&
    typeof parsed.type === 'string' &&
    (typeof parsed.subtype === 'string' || parsed.subtype === null) &&
    typeof parsed.message === 'string' &&
    parsed.details === null &&
    typeof parsed.contextId === 'string';
  return fits ? undefined : 'not the documented error body';
}
