import assert from 'node:assert/strict';
import { systemClock } from '../../src/shared/clock.ts';
import { openDatabase } from '../../src/db/database.ts';
import { randomIds } from '../../src/shared/ids.ts';
import { createClient } from '../../src/oauth/clients.service.ts';
import { issueCode } from '../../src/oauth/codes.ts';
import type { Scope } from '../../src/shared/scopes.ts';
import { TOKEN_PATH } from '../../src/oauth/token.routes.ts';
import { basic, REDIRECT_URI } from './oauth.ts';
import { request } from './process.ts';

export interface ConnectedAppToken {
  clientId: string;
  accessToken: string;
}

/**
 * A new app of the website's owner, allowed on the website: its code is issued in the database as
 * the consent page's Allow would, and redeemed at a running server's token endpoint, as the app
 * does. For tests of the real process, where there is no app.inject.
 */
export async function connectedAppToken(
  databaseUrl: string,
  baseUrl: string,
  app: { websiteId: string; name: string; scopes: Scope[] },
): Promise<ConnectedAppToken> {
  const handle = openDatabase(databaseUrl, { max: 1 });
  const deps = { db: handle.db, clock: systemClock, ids: randomIds };
  try {
    const website = await handle.db
      .selectFrom('websites')
      .innerJoin('owners', 'owners.id', 'websites.owner_id')
      .select(['websites.owner_id', 'owners.email'])
      .where('websites.id', '=', app.websiteId)
      .executeTakeFirstOrThrow();
    const client = await createClient(deps, {
      ownerEmail: website.email,
      name: app.name,
      redirectUris: [REDIRECT_URI],
    });
    const code = await issueCode(deps, {
      clientId: client.clientId,
      websiteId: app.websiteId,
      ownerId: website.owner_id,
      scopes: app.scopes,
      offline: false,
      redirectUri: REDIRECT_URI,
      codeChallenge: null,
    });
    const res = await request(
      baseUrl,
      'POST',
      TOKEN_PATH,
      { authorization: basic(client.clientId, client.clientSecret), 'user-agent': 'e2e-test' },
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI },
    );
    assert.equal(res.status, 200, res.body);
    return { clientId: client.clientId, accessToken: JSON.parse(res.body).access_token };
  } finally {
    await handle.close();
  }
}
