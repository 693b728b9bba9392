/**
 * node-oidc-provider (`oidc-provider` 9), the peer of the OAuth benchmark's refresh grant, in a
 * process of its own on 127.0.0.1. One client with client_secret_basic and the refresh_token
 * grant; refresh tokens rotated on every use (`rotateRefreshToken: true`).
 *
 *   node --import tsx bench/oidc-peer.ts --port 4000 --adapter memory
 *   node --import tsx bench/oidc-peer.ts --port 4000 --adapter pg   # with PEER_DATABASE_URL
 *
 * `--adapter memory` is the provider's own in-memory adapter; `--adapter pg` the adapter below:
 * one PostgreSQL table for every model, each adapter call one statement on a pool of 10 (the size
 * of Emporium's pool). The client's id and secret come from PEER_CLIENT_ID and
 * PEER_CLIENT_SECRET.
 *
 * Beside the provider's routes, for the benchmark only:
 * - `GET /_bench/ready`: 200 once the provider (and its table) is ready;
 * - `POST /_bench/chains?count=N`: N new grants of `--scope` (offline_access by default; with
 *   openid each refresh also answers an ID token) with a refresh token each, made with the
 *   provider's own models, outside any measured request; answers `{"refreshTokens": [...]}`;
 * - `GET /_bench/stats`: the PostgreSQL adapter's calls so far, by model and method (each one
 *   statement), and the number of refresh tokens saved.
 */
import http from 'node:http';
import { parseArgs } from 'node:util';
import Provider, { type Adapter, type AdapterPayload, type Configuration } from 'oidc-provider';
import pg from 'pg';

const { values: args } = parseArgs({
  options: {
    port: { type: 'string' },
    adapter: { type: 'string', default: 'memory' },
    scope: { type: 'string', default: 'offline_access' },
  },
});
const port = Number(args.port);
if (!Number.isInteger(port) || port <= 0) throw new Error('--port: a port number');
if (args.adapter !== 'memory' && args.adapter !== 'pg') throw new Error('--adapter: memory or pg');
const clientId = process.env.PEER_CLIENT_ID ?? 'bench-app';
const clientSecret = process.env.PEER_CLIENT_SECRET ?? 'bench-secret-bench-secret-bench-secret';
const ACCOUNT_ID = 'bench-account';
const REDIRECT_URI = 'https://bench.example.com/callback';

/** Adapter calls by `Model.method`. */
const calls: Record<string, number> = {};
const count = (model: string, method: string) => {
  const key = `${model}.${method}`;
  calls[key] = (calls[key] ?? 0) + 1;
};

const TABLE = `
  CREATE TABLE IF NOT EXISTS oidc_payloads (
    id text NOT NULL,
    kind text NOT NULL,
    payload jsonb NOT NULL,
    grant_id text,
    user_code text,
    uid text,
    expires_at timestamptz,
    consumed_at timestamptz,
    PRIMARY KEY (id, kind)
  );
  CREATE INDEX IF NOT EXISTS oidc_payloads_grant_id ON oidc_payloads (grant_id);
  CREATE INDEX IF NOT EXISTS oidc_payloads_user_code ON oidc_payloads (user_code);
  CREATE INDEX IF NOT EXISTS oidc_payloads_uid ON oidc_payloads (uid);
`;

interface Row {
  payload: AdapterPayload;
  consumed_at: Date | null;
}

/**
 * The usual one-table adapter of oidc-provider: a model's payload as jsonb under (id, kind), with
 * the columns its lookups need; consuming stamps `consumed_at`. Every call is one statement, in
 * autocommit, prepared by name.
 */
function pgAdapterClass(pool: pg.Pool) {
  const found = (rows: Row[]): AdapterPayload | undefined => {
    const row = rows[0];
    if (!row) return undefined;
    return row.consumed_at
      ? { ...row.payload, consumed: Math.floor(row.consumed_at.getTime() / 1000) }
      : row.payload;
  };
  return class PgAdapter implements Adapter {
    constructor(private readonly kind: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number) {
      count(this.kind, 'upsert');
      const expiresAt = expiresIn ? new Date(Date.now() + expiresIn * 1000) : null;
      await pool.query({
        name: 'oidc-upsert',
        text: `INSERT INTO oidc_payloads (id, kind, payload, grant_id, user_code, uid, expires_at)
               VALUES ($1, $2, $3, $4, $5, $6, $7)
               ON CONFLICT (id, kind) DO UPDATE SET payload = excluded.payload,
                 grant_id = excluded.grant_id, user_code = excluded.user_code, uid = excluded.uid,
                 expires_at = excluded.expires_at`,
        values: [
          id,
          this.kind,
          payload,
          payload.grantId ?? null,
          payload.userCode ?? null,
          payload.uid ?? null,
          expiresAt,
        ],
      });
    }

    async find(id: string) {
      count(this.kind, 'find');
      const { rows } = await pool.query<Row>({
        name: 'oidc-find',
        text: 'SELECT payload, consumed_at FROM oidc_payloads WHERE id = $1 AND kind = $2',
        values: [id, this.kind],
      });
      return found(rows);
    }

    async findByUserCode(userCode: string) {
      count(this.kind, 'findByUserCode');
      const { rows } = await pool.query<Row>({
        name: 'oidc-find-user-code',
        text: 'SELECT payload, consumed_at FROM oidc_payloads WHERE user_code = $1 AND kind = $2',
        values: [userCode, this.kind],
      });
      return found(rows);
    }

    async findByUid(uid: string) {
      count(this.kind, 'findByUid');
      const { rows } = await pool.query<Row>({
        name: 'oidc-find-uid',
        text: 'SELECT payload, consumed_at FROM oidc_payloads WHERE uid = $1 AND kind = $2',
        values: [uid, this.kind],
      });
      return found(rows);
    }

    async consume(id: string) {
      count(this.kind, 'consume');
      await pool.query({
        name: 'oidc-consume',
        text: 'UPDATE oidc_payloads SET consumed_at = now() WHERE id = $1 AND kind = $2',
        values: [id, this.kind],
      });
    }

    async destroy(id: string) {
      count(this.kind, 'destroy');
      await pool.query({
        name: 'oidc-destroy',
        text: 'DELETE FROM oidc_payloads WHERE id = $1 AND kind = $2',
        values: [id, this.kind],
      });
    }

    async revokeByGrantId(grantId: string) {
      count(this.kind, 'revokeByGrantId');
      await pool.query({
        name: 'oidc-revoke-grant',
        text: 'DELETE FROM oidc_payloads WHERE grant_id = $1',
        values: [grantId],
      });
    }
  };
}

let pool: pg.Pool | undefined;
/** Unset: the provider's own in-memory adapter, as it comes. */
let adapter: Configuration['adapter'];
if (args.adapter === 'pg') {
  const url = process.env.PEER_DATABASE_URL;
  if (!url) throw new Error('--adapter pg: set PEER_DATABASE_URL');
  pool = new pg.Pool({ connectionString: url, max: 10 });
  await pool.query(TABLE);
  adapter = pgAdapterClass(pool);
}

const configuration: Configuration = {
  adapter,
  clients: [
    {
      client_id: clientId,
      client_secret: clientSecret,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'client_secret_basic',
    },
  ],
  scopes: ['openid', 'offline_access'],
  rotateRefreshToken: () => true,
  issueRefreshToken: async (_ctx, client, code) =>
    client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access'),
  findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
  cookies: { keys: ['bench-cookie-key-bench-cookie-key'] },
  features: { devInteractions: { enabled: false } },
  // The provider's defaults, set so that it does not warn about them.
  ttl: { AccessToken: 3600, IdToken: 3600, RefreshToken: 14 * 86400, Grant: 14 * 86400 },
};
const provider = new Provider(`http://127.0.0.1:${port}`, configuration);
let refreshTokensIssued = 0;
provider.on('refresh_token.saved', () => refreshTokensIssued++);

/** A grant as an Allow would make it, and its first refresh token, for a chain of refreshes. */
async function newChain(): Promise<string> {
  const client = await provider.Client.find(clientId);
  if (!client) throw new Error(`client ${clientId} not found`);
  const grant = new provider.Grant({ accountId: ACCOUNT_ID, clientId });
  grant.addOIDCScope(args.scope);
  const grantId = await grant.save();
  const refreshToken = new provider.RefreshToken({
    client,
    accountId: ACCOUNT_ID,
    grantId,
    gty: 'authorization_code',
    scope: args.scope,
  });
  return refreshToken.save();
}

const callback = provider.callback();
const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  if (!url.pathname.startsWith('/_bench/')) return void callback(req, res);
  const answer = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (req.method === 'GET' && url.pathname === '/_bench/ready') return answer(200, { ok: true });
  if (req.method === 'GET' && url.pathname === '/_bench/stats') {
    return answer(200, { calls, refreshTokensIssued });
  }
  if (req.method === 'POST' && url.pathname === '/_bench/chains') {
    const n = Number(url.searchParams.get('count') ?? '1');
    Promise.all(Array.from({ length: n }, newChain)).then(
      (refreshTokens) => answer(200, { refreshTokens }),
      (error: unknown) => answer(500, { error: String(error) }),
    );
    return;
  }
  answer(404, { error: 'not found' });
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1');

const stop = () => {
  server.close();
  server.closeAllConnections();
  void (pool?.end() ?? Promise.resolve()).finally(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
