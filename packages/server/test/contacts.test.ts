import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ContactPage } from '../src/customers/contacts.schemas.ts';
import {
  CONTACTS,
  MICROS,
  contactBody,
  createContact,
  getContact,
  patch,
  uniqueEmail,
} from './helpers/contacts.ts';
import { customLine, importBody, importOrder } from './helpers/orders.ts';
import { GOOD_CHECKOUT, seeOther, Shopper, shirt } from './helpers/shopper.ts';
import { assertError, assertShape } from './helpers/shape.ts';
import { BASE_URL, testApp, type Site, type TestContext } from './helpers/test-app.ts';
import { connectApp } from './helpers/webhooks.ts';

/** Contacts v1 (platform-surface 2.6): create, read, merge-patch, delete; one person with the profile. */

let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
  site = await ctx.site();
});
after(() => ctx.close());

const invalid = (res: Parameters<typeof assertError>[0], message: RegExp) =>
  assertError(res, 400, 'INVALID_REQUEST_ERROR', (res.json() as { subtype: string | null }).subtype, message);

const count = async (s: Site) =>
  Number(
    (
      await ctx.db
        .selectFrom('profiles')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('website_id', '=', s.websiteId)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('create and get', () => {
  test('201 with { contact }: microsecond times, the e-mail, marketing and no default address', async () => {
    const email = uniqueEmail('ada');
    const res = await site.call({
      method: 'POST',
      url: CONTACTS,
      payload: contactBody({ primaryEmail: { email, acceptsMarketing: true } }, email),
    });
    assert.equal(res.statusCode, 201, res.body);
    const { contact } = res.json();
    assert.deepEqual(Object.keys(contact), [
      'id',
      'createdOn',
      'firstName',
      'lastName',
      'locale',
      'primaryEmail',
      'defaultShippingAddress',
    ]);
    assert.match(contact.id, /^[0-9a-f]{24}$/);
    assert.match(contact.createdOn, MICROS);
    assert.deepEqual(
      { ...contact, id: undefined, createdOn: undefined },
      {
        id: undefined,
        createdOn: undefined,
        firstName: 'Ada',
        lastName: 'Lovelace',
        locale: 'en-GB',
        primaryEmail: {
          createdOn: contact.createdOn,
          email,
          acceptsMarketing: { acceptsMarketing: true, joinedOn: contact.createdOn, leftOn: null },
        },
        defaultShippingAddress: null,
      },
    );
    assert.deepEqual(await getContact(site, contact.id), contact);
    assert.deepEqual(await getContact(site, contact.id.toUpperCase()), contact, 'ids in any case');
  });

  test('acceptsMarketing defaults to false with no joinedOn; an empty lastName stays an empty string', async () => {
    const email = uniqueEmail();
    const contact = await createContact(site, {
      firstName: 'Alya',
      lastName: '',
      locale: null,
      primaryEmail: { email },
    });
    assert.equal(contact.lastName, '');
    assert.equal(contact.locale, null);
    assert.deepEqual(contact.primaryEmail.acceptsMarketing, {
      acceptsMarketing: false,
      joinedOn: null,
      leftOn: null,
    });
  });

  test('the same e-mail in any case is a 409 and stores nothing', async () => {
    const email = uniqueEmail('dup');
    await createContact(site, contactBody({}, email));
    const before = await count(site);
    const res = await site.call({
      method: 'POST',
      url: CONTACTS,
      payload: contactBody({}, email.toUpperCase()),
    });
    assertError(res, 409, 'CONFLICT', 'DUPLICATE_USER_CONFLICT', /already exists/);
    assert.equal(await count(site), before);
  });

  test('every bad body is a 400 naming the field, and nothing is stored', async () => {
    const before = await count(site);
    const ok = () => contactBody();
    const cases: [string, unknown, RegExp][] = [
      ['no firstName', { ...ok(), firstName: undefined }, /firstName/],
      ['no lastName', { ...ok(), lastName: undefined }, /lastName/],
      ['no locale', { ...ok(), locale: undefined }, /locale/],
      ['a bad locale', { ...ok(), locale: 'english please' }, /locale/],
      ['no primaryEmail', { ...ok(), primaryEmail: undefined }, /primaryEmail/],
      ['no e-mail', { ...ok(), primaryEmail: { acceptsMarketing: true } }, /primaryEmail.*email/],
      ['not an e-mail', { ...ok(), primaryEmail: { email: 'nobody' } }, /primaryEmail.email/],
      ['a long name', { ...ok(), firstName: 'x'.repeat(201) }, /firstName/],
      ['a number for a name', { ...ok(), firstName: 7 }, /firstName/],
      [
        'acceptsMarketing not boolean',
        { ...ok(), primaryEmail: { email: uniqueEmail(), acceptsMarketing: 'yes' } },
        /acceptsMarketing/,
      ],
    ];
    for (const [what, payload, message] of cases) {
      const res = await site.call({ method: 'POST', url: CONTACTS, payload: payload as object });
      assert.equal(res.statusCode, 400, `${what}: ${res.body}`);
      invalid(res, message);
    }
    const notJson = await site.call({
      method: 'POST',
      url: CONTACTS,
      headers: { 'content-type': 'text/plain' },
      payload: 'hello',
    });
    assert.equal(notJson.json().subtype, 'INVALID_CONTENT_TYPE');
    assert.equal(await count(site), before);
  });

  test("a malformed id, an unknown one and another website's contact are all 404", async () => {
    const other = await ctx.site();
    const theirs = await createContact(other);
    for (const id of ['nope', 'a'.repeat(24), theirs.id]) {
      const res = await site.call({ method: 'GET', url: `${CONTACTS}/${id}` });
      assertError(res, 404, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT', /contact not found/);
      assert.equal((await patch(site, id, { firstName: 'X' })).statusCode, 404);
      assert.equal((await site.call({ method: 'DELETE', url: `${CONTACTS}/${id}` })).statusCode, 404);
    }
    assert.equal(
      (await getContact(other, theirs.id)).firstName,
      'Ada',
      "the other website's contact is unchanged",
    );
  });
});

describe('merge patch', () => {
  test('a field left out is kept; locale null clears; names, e-mail and marketing change', async () => {
    const created = await createContact(site);
    ctx.clock.advance(1000);
    const res = await patch(site, created.id, { lastName: 'Byron', locale: null });
    assert.equal(res.statusCode, 200, res.body);
    const { contact } = res.json();
    assert.equal(contact.firstName, 'Ada');
    assert.equal(contact.lastName, 'Byron');
    assert.equal(contact.locale, null);
    assert.deepEqual(contact.primaryEmail, created.primaryEmail, 'primaryEmail left out: kept');

    const email = uniqueEmail('new');
    const subscribed = (
      await patch(site, created.id, { primaryEmail: { email, acceptsMarketing: true } })
    ).json().contact;
    assert.equal(subscribed.primaryEmail.email, email);
    assert.notEqual(
      subscribed.primaryEmail.createdOn,
      created.primaryEmail.createdOn,
      'a new address, a new createdOn',
    );
    assert.match(subscribed.primaryEmail.acceptsMarketing.joinedOn, MICROS);
    assert.equal(subscribed.primaryEmail.acceptsMarketing.leftOn, null);

    const recased = (await patch(site, created.id, { primaryEmail: { email: email.toUpperCase() } })).json()
      .contact;
    assert.equal(recased.primaryEmail.email, email.toUpperCase());
    assert.equal(recased.primaryEmail.createdOn, subscribed.primaryEmail.createdOn, 'only the case changed');
    assert.equal(
      recased.primaryEmail.acceptsMarketing.acceptsMarketing,
      true,
      'acceptsMarketing left out: kept',
    );

    const left = (await patch(site, created.id, { primaryEmail: { acceptsMarketing: false } })).json()
      .contact;
    assert.equal(left.primaryEmail.acceptsMarketing.acceptsMarketing, false);
    assert.equal(
      left.primaryEmail.acceptsMarketing.joinedOn,
      subscribed.primaryEmail.acceptsMarketing.joinedOn,
    );
    assert.match(left.primaryEmail.acceptsMarketing.leftOn, MICROS);
    assert.deepEqual(await getContact(site, created.id), left);
  });

  test('plain application/json is taken as well', async () => {
    const created = await createContact(site);
    const res = await site.call({
      method: 'PATCH',
      url: `${CONTACTS}/${created.id}`,
      payload: { firstName: 'Augusta' },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().contact.firstName, 'Augusta');
  });

  test("null on a field that cannot be null, a bad e-mail, another contact's e-mail: errors, nothing changes", async () => {
    const taken = await createContact(site);
    const created = await createContact(site);
    for (const [body, message] of [
      [{ firstName: null }, /firstName/],
      [{ lastName: null }, /lastName/],
      [{ primaryEmail: null }, /primaryEmail/],
      [{ primaryEmail: { email: null } }, /email/],
      [{ primaryEmail: { email: 'nobody' } }, /primaryEmail.email/],
      [{ locale: 'x y' }, /locale/],
    ] as const) {
      invalid(await patch(site, created.id, body), message);
    }
    const conflict = await patch(site, created.id, {
      firstName: 'Changed',
      primaryEmail: { email: taken.primaryEmail.email.toUpperCase() },
    });
    assertError(conflict, 409, 'CONFLICT', 'DUPLICATE_USER_CONFLICT', /already exists/);
    assert.deepEqual(await getContact(site, created.id), created);
  });
});

describe('delete', () => {
  test('204, then 404; the e-mail is free again', async () => {
    const created = await createContact(site);
    const res = await site.call({ method: 'DELETE', url: `${CONTACTS}/${created.id}` });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    assert.equal((await site.call({ method: 'GET', url: `${CONTACTS}/${created.id}` })).statusCode, 404);
    const again = await createContact(site, contactBody({}, created.primaryEmail.email));
    assert.notEqual(again.id, created.id);
  });
});

describe('one person, one id (platform-surface 2.6.2, open question 5)', () => {
  test('a contact created over the API is a profile of 1.0, not a customer', async () => {
    const created = await createContact(site);
    const res = await site.call({ method: 'GET', url: `/1.0/profiles/${created.id}` });
    assert.equal(res.statusCode, 200, res.body);
    const [profile] = res.json().profiles;
    assert.equal(profile.email, created.primaryEmail.email);
    assert.equal(profile.isCustomer, false);
    assert.equal(profile.createdOn, created.createdOn);
    assert.equal(profile.transactionsSummary.orderCount, 0);
  });

  test("an imported order's buyer becomes a contact whose id is the order's customerId", async () => {
    const own = await ctx.site();
    const email = uniqueEmail('Buyer');
    const res = await importOrder(
      own,
      importBody([customLine('Engraving', 1, '3.00')], {
        customerEmail: email,
        billingAddress: { firstName: 'Grace', lastName: 'Hopper', countryCode: 'US' },
      }),
    );
    assert.equal(res.statusCode, 201, res.body);
    const order = res.json();
    const contact = await getContact(own, order.customerId);
    assert.deepEqual(
      [contact.firstName, contact.lastName, contact.primaryEmail.email],
      ['Grace', 'Hopper', email],
    );
    const list = await own.call({ method: 'GET', url: CONTACTS });
    assert.deepEqual(
      list.json().contacts.map((c: { id: string }) => c.id),
      [order.customerId],
    );
  });

  test("a storefront buyer becomes a contact whose id is the order's customerId, its shipping address the default", async () => {
    const own = await ctx.site();
    const { small } = await shirt(own, 3);
    const shopper = new Shopper(ctx, own.websiteId);
    seeOther(await shopper.add(small, 1));
    const confirmation = seeOther(await shopper.checkout());
    const orderId = /\/checkout\/orders\/([0-9a-f]{24})$/.exec(confirmation)?.[1];
    const order = (await own.call({ method: 'GET', url: `/1.0/commerce/orders/${orderId}` })).json();
    const contact = await getContact(own, order.customerId);
    assert.equal(contact.primaryEmail.email, GOOD_CHECKOUT.email);
    assert.deepEqual(
      [contact.firstName, contact.lastName],
      [GOOD_CHECKOUT.firstName, GOOD_CHECKOUT.lastName],
    );
    assert.equal(contact.defaultShippingAddress?.address.line1, GOOD_CHECKOUT.address1);
    assert.equal(contact.defaultShippingAddress?.address.region, GOOD_CHECKOUT.state);
  });

  test('a contact created over the API keeps its id when it buys, whatever the case of the e-mail', async () => {
    const own = await ctx.site();
    const created = await createContact(
      own,
      contactBody({ firstName: '', lastName: '' }, uniqueEmail('Later')),
    );
    const res = await importOrder(
      own,
      importBody([customLine('Mug')], {
        customerEmail: created.primaryEmail.email.toUpperCase(),
        billingAddress: { firstName: 'Grace', lastName: 'Hopper', countryCode: 'US' },
      }),
    );
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().customerId, created.id);
    const contact = await getContact(own, created.id);
    assert.deepEqual(
      [contact.firstName, contact.lastName],
      ['Grace', 'Hopper'],
      'empty names filled by the order',
    );
    assert.equal(contact.primaryEmail.email, created.primaryEmail.email, 'the e-mail as first given');
    const profile = (await own.call({ method: 'GET', url: `/1.0/profiles/${created.id}` })).json()
      .profiles[0];
    assert.equal(profile.isCustomer, true);
  });

  test('deleting a buyer: the order keeps its customerId; a later order with the e-mail makes a new contact', async () => {
    const own = await ctx.site();
    const email = uniqueEmail('gone');
    const first = (await importOrder(own, importBody([customLine('A')], { customerEmail: email }))).json();
    assert.equal(
      (await own.call({ method: 'DELETE', url: `${CONTACTS}/${first.customerId}` })).statusCode,
      204,
    );
    const kept = await own.call({ method: 'GET', url: `/1.0/commerce/orders/${first.id}` });
    assert.equal(kept.json().customerId, first.customerId);
    assert.equal(
      (await own.call({ method: 'GET', url: `/1.0/profiles/${first.customerId}` })).statusCode,
      404,
    );
    const second = (await importOrder(own, importBody([customLine('B')], { customerEmail: email }))).json();
    assert.notEqual(second.customerId, first.customerId);
    assert.equal((await getContact(own, second.customerId)).primaryEmail.email, email);
  });
});

describe('list', () => {
  test('pageSize pages through every contact, oldest first; 0 is the default; the cursor may bring a pageSize', async () => {
    const own = await ctx.site();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createContact(own)).id);
    const first = await own.call({ method: 'GET', url: CONTACTS, query: { pageSize: '2' } });
    assert.equal(first.statusCode, 200, first.body);
    assertShape(ContactPage, first.json());
    const seen = first.json().contacts.map((c: { id: string }) => c.id);
    let pagination = first.json().pagination;
    assert.equal(
      pagination.nextPageUrl,
      `${BASE_URL}${CONTACTS}?cursor=${encodeURIComponent(pagination.nextPageCursor)}`,
    );
    while (pagination.hasNextPage) {
      const next = await own.call({
        method: 'GET',
        url: CONTACTS,
        query: { cursor: pagination.nextPageCursor },
      });
      assert.ok(next.json().contacts.length <= 2, 'the cursor keeps the page size');
      seen.push(...next.json().contacts.map((c: { id: string }) => c.id));
      pagination = next.json().pagination;
    }
    assert.deepEqual(seen, ids);
    assert.deepEqual(pagination, { hasNextPage: false, nextPageCursor: null, nextPageUrl: null });
    const zero = await own.call({ method: 'GET', url: CONTACTS, query: { pageSize: '0' } });
    assert.equal(zero.json().contacts.length, 5);
    const empty = await (await ctx.site()).call({ method: 'GET', url: CONTACTS });
    assert.deepEqual(empty.json(), {
      contacts: [],
      pagination: { nextPageUrl: null, nextPageCursor: null, hasNextPage: false },
    });
  });

  test('a pageSize out of 0..1000 or not a number, and a foreign cursor, are 400', async () => {
    for (const pageSize of ['1001', '-1', 'ten', '1.5']) {
      invalid(await site.call({ method: 'GET', url: CONTACTS, query: { pageSize } }), /pageSize/);
    }
    invalid(await site.call({ method: 'GET', url: CONTACTS, query: { cursor: 'abc.def' } }), /cursor/);
    const other = await ctx.site();
    await createContact(other);
    await createContact(other);
    const theirs = (await other.call({ method: 'GET', url: CONTACTS, query: { pageSize: '1' } })).json()
      .pagination;
    invalid(
      await site.call({ method: 'GET', url: CONTACTS, query: { cursor: theirs.nextPageCursor } }),
      /cursor/,
    );
  });
});

describe('scopes (platform-surface 0.7)', () => {
  test('reads take website.contacts.read; writes need website.contacts', async () => {
    const reader = await ctx.site({ scopes: ['website.contacts.read'] });
    assert.equal((await reader.call({ method: 'GET', url: CONTACTS })).statusCode, 200);
    assert.equal(
      (await reader.call({ method: 'POST', url: `${CONTACTS}/query`, payload: {} })).statusCode,
      200,
    );
    assertError(
      await reader.call({ method: 'POST', url: CONTACTS, payload: contactBody() }),
      403,
      'AUTHORIZATION_ERROR',
      'MISSING_SCOPE',
      /website.contacts/,
    );
    const none = await ctx.site({ scopes: ['website.orders'] });
    assertError(
      await none.call({ method: 'GET', url: CONTACTS }),
      403,
      'AUTHORIZATION_ERROR',
      'MISSING_SCOPE',
    );
  });

  test('an OAuth token with website.profiles.read reads contacts; an API key with it does not', async () => {
    const app = await connectApp(ctx, ['website.profiles.read']);
    const created = await createContact(await ctx.site()); // another site: only to have an id
    const listed = await app.call('GET', CONTACTS);
    assert.equal(listed.statusCode, 200, listed.body);
    assert.equal((await app.call('GET', `${CONTACTS}/${created.id}`)).statusCode, 404);
    assert.equal((await app.call('POST', CONTACTS, contactBody())).statusCode, 403);
    const key = await ctx.site({ scopes: ['website.profiles.read'] });
    assert.equal((await key.call({ method: 'GET', url: CONTACTS })).statusCode, 403);
  });

  test('an OAuth token with website.profiles writes contacts; an API key with it does not', async () => {
    const app = await connectApp(ctx, ['website.profiles']);
    const created = await app.call('POST', CONTACTS, contactBody());
    assert.equal(created.statusCode, 201, created.body);
    const key = await ctx.site({ scopes: ['website.profiles'] });
    assert.equal((await key.call({ method: 'POST', url: CONTACTS, payload: contactBody() })).statusCode, 403);
  });
});
