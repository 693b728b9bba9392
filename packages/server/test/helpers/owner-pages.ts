import assert from 'node:assert/strict';
import { TestBrowser } from './browser.ts';
import type { Site, TestContext } from './test-app.ts';

/** The e-mail the site's owner signs in with. */
export async function ownerEmailOf(
  ctx: Pick<TestContext, 'db'>,
  site: Pick<Site, 'websiteId'>,
): Promise<string> {
  const { email } = await ctx.db
    .selectFrom('websites')
    .innerJoin('owners', 'owners.id', 'websites.owner_id')
    .select('owners.email')
    .where('websites.id', '=', site.websiteId)
    .executeTakeFirstOrThrow();
  return email;
}

/** The site's owner, signed in in a browser of its own. */
export async function signedInOwner(ctx: TestContext, site: Site): Promise<TestBrowser> {
  const email = await ownerEmailOf(ctx, site);
  const browser = new TestBrowser(ctx.app);
  const signedIn = await browser.signIn(email);
  assert.equal(signedIn.statusCode, 303, signedIn.body);
  return browser;
}

/** The order ids a list page links to, in page order. */
export const listedOrders = (body: string, websiteId: string) =>
  [...body.matchAll(new RegExp(`href="/sites/${websiteId}/orders/([0-9a-f]{24})"`, 'g'))].map((m) => m[1]);

/** The list's link to its next (older) page, as a browser follows it. */
export const olderLink = (body: string) =>
  /href="([^"]+)" rel="next"/.exec(body)?.[1]?.replace(/&amp;/g, '&');
