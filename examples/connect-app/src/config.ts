/** The app's settings, from the environment only (README "Configuration"). */
export interface AppConfig {
  clientId: string;
  clientSecret: string;
  /** Origin of the Emporium API (BASE_URL of the service). */
  baseUrl: string;
  /** Origin of Emporium's sign-in, consent and token endpoints (AUTH_URL of the service). */
  authUrl: string;
  /** Port to listen on, on 127.0.0.1; 0 picks a free one. */
  port: number;
  /** The app's public origin: the redirect URI is `${appUrl}/callback`, webhooks go to `${appUrl}/webhooks`. */
  appUrl: string;
  /** The app's own record of connected sites; the tokens go beside it (see tokenFile). */
  dataFile: string;
}

export class ConfigError extends Error {}

function origin(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${name}: not an absolute URL: ${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError(`${name}: must be http(s)`);
  // Paths are appended to it, so a trailing slash would double up.
  return value.replace(/\/+$/, '');
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const clientId = env.EMPORIUM_CLIENT_ID?.trim();
  const clientSecret = env.EMPORIUM_CLIENT_SECRET?.trim();
  if (!clientId || !clientSecret) {
    throw new ConfigError(
      'EMPORIUM_CLIENT_ID and EMPORIUM_CLIENT_SECRET are required: register the app at <Emporium>/apps (README)',
    );
  }
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError(`PORT: not a port: ${env.PORT}`);
  return {
    clientId,
    clientSecret,
    baseUrl: origin('EMPORIUM_BASE_URL', env.EMPORIUM_BASE_URL ?? 'http://127.0.0.1:8080'),
    authUrl: origin('EMPORIUM_AUTH_URL', env.EMPORIUM_AUTH_URL ?? 'http://127.0.0.1:8080'),
    port,
    appUrl: origin('APP_URL', env.APP_URL ?? `http://127.0.0.1:${port}`),
    dataFile: env.DATA_FILE ?? './connect-app-data.json',
  };
}

/** The SDK's token store lives in a file of its own beside the data file: connect-app-data.tokens.json. */
export function tokenFile(dataFile: string): string {
  return dataFile.endsWith('.json') ? `${dataFile.slice(0, -5)}.tokens.json` : `${dataFile}.tokens.json`;
}
