import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createOrder } from '../src/orders/orders.service.ts';
import { address, addEntry, contactBody, createContact, uniqueEmail } from './helpers/contacts.ts';
import { nativeDraft } from './helpers/orders.ts';
import { signedInOwner } from './helpers/owner-pages.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';

/** The owner's contact pages: the list, its search and pages, and a contact with orders and addresses. */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
});
after(() => ctx.close());

const listedContacts = (body: string, websiteId: string) =>
  [...body.matchAll(new RegExp(`href="/sites/${websiteId}/contacts/([0-9a-f]{24})"`, 'g'))].map((m) => m[1]);
const nextLink = (body: string) => /href="([^"]+)" rel="next"/.exec(body)?.[1]?.replace(/&amp;/g, '&');

describe('contact list', () => {
  test('lists the site’s contacts, finds them by name or e-mail as the API’s search does, and pages', async () => {
    const site = await ctx.site();
    const ada = await createContact(site, contactBody({ firstName: 'Ada', lastName: 'Byron' }));
    const grace = await createContact(
      site,
      contactBody({ firstName: 'Grace', lastName: 'Hopper' }, uniqueEmail('navy')),
    );
    const browser = await signedInOwner(ctx, site);
    const all = await browser.get(`/sites/${site.websiteId}/contacts`);
    assert.equal(all.statusCode, 200, all.body);
    assert.deepEqual(new Set(listedContacts(all.body, site.websiteId)), new Set([ada.id, grace.id]));

    const byName = await browser.get(`/sites/${site.websiteId}/contacts?q=hopper`);
    assert.deepEqual(listedContacts(byName.body, site.websiteId), [grace.id]);
    assert.match(byName.body, /value="hopper"/);
    const byEmail = await browser.get(`/sites/${site.websiteId}/contacts?q=navy-`);
    assert.deepEqual(listedContacts(byEmail.body, site.websiteId), [grace.id]);
    const none = await browser.get(`/sites/${site.websiteId}/contacts?q=nobody-here`);
    assert.deepEqual(listedContacts(none.body, site.websiteId), []);
    assert.match(none.body, /No contacts found/);

    for (let i = 0; i < 50; i++) await createContact(site);
    const first = await browser.get(`/sites/${site.websiteId}/contacts`);
    const seen = listedContacts(first.body, site.websiteId);
    assert.equal(seen.length, 50);
    const next = nextLink(first.body);
    assert.ok(next, 'a link to the next page');
    const second = await browser.get(next);
    assert.equal(second.statusCode, 200);
    const rest = listedContacts(second.body, site.websiteId);
    assert.equal(rest.length, 2);
    assert.equal(new Set([...seen, ...rest]).size, 52);
  });

  test('a search too long, or a cursor not from the list: 400 with the message beside the search field', async () => {
    const site = await ctx.site();
    const browser = await signedInOwner(ctx, site);
    const long = await browser.get(`/sites/${site.websiteId}/contacts?q=${'x'.repeat(201)}`);
    assert.equal(long.statusCode, 400);
    assert.match(long.body, /id="q-error"[^>]*>Search: at most 200 characters/);
    assert.match(long.body, /aria-describedby="q-error"/);
    const cursor = await browser.get(`/sites/${site.websiteId}/contacts?cursor=forged`);
    assert.equal(cursor.statusCode, 400);
  });
});

describe('contact page', () => {
  test('shows the contact’s details, its orders linking to the order pages, and its address book', async () => {
    const site = await ctx.site();
    const email = uniqueEmail('buyer');
    const placed = (
      await createOrder(
        ctx.api,
        site.websiteId,
        nativeDraft(new Date('2026-03-01T09:00:00Z'), { customerEmail: email }),
      )
    ).order;
    const contactId = placed.customerId!;
    await addEntry(site, contactId, { address: address({ city: 'Salem' }) });
    const browser = await signedInOwner(ctx, site);
    const res = await browser.get(`/sites/${site.websiteId}/contacts/${contactId}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.ok(res.body.includes(email));
    assert.ok(res.body.includes(`href="/sites/${site.websiteId}/orders/${placed.id}"`));
    assert.match(res.body, /#\d+/);
    assert.match(res.body, /Salem/);

    const bare = await createContact(site);
    const empty = await browser.get(`/sites/${site.websiteId}/contacts/${bare.id}`);
    assert.match(empty.body, /No orders\./);
    assert.match(empty.body, /No addresses\./);
  });

  test('the site page links to contacts; another owner’s site or contact is 404; signed out asks to sign in', async () => {
    const site = await ctx.site();
    const stranger = await ctx.site();
    const theirs = await createContact(stranger);
    const browser = await signedInOwner(ctx, site);
    const home = await browser.get(`/sites/${site.websiteId}`);
    assert.ok(home.body.includes(`href="/sites/${site.websiteId}/contacts"`));
    assert.equal((await browser.get(`/sites/${stranger.websiteId}/contacts`)).statusCode, 404);
    assert.equal((await browser.get(`/sites/${stranger.websiteId}/contacts/${theirs.id}`)).statusCode, 404);
    assert.equal((await browser.get(`/sites/${site.websiteId}/contacts/${theirs.id}`)).statusCode, 404);
    assert.equal((await browser.get(`/sites/${site.websiteId}/contacts/not-an-id`)).statusCode, 404);
    const signedOut = await ctx.app.inject({ method: 'GET', url: `/sites/${site.websiteId}/contacts` });
    assert.equal(signedOut.statusCode, 303);
    assert.match(String(signedOut.headers.location), /^\/login\?next=/);
  });
});
