import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { cancelOrder } from '../src/orders/cancel-order.ts';
import { buyGiftCards, giftCardProduct } from './helpers/gift-cards.ts';
import { signedInOwner } from './helpers/owner-pages.ts';
import { seeOther, Shopper, shirt } from './helpers/shopper.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';
import { until } from './helpers/webhooks.ts';

/** The e-mails a store sends its shoppers: written with the change they tell of, per site. */

const TOKEN = 'emp_test_emails-token-0123456789';

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent', testControlsToken: TOKEN });
});
after(async () => {
  await ctx.close();
});

const emailsOf = (websiteId: string, c = ctx) =>
  c.db.selectFrom('emails').selectAll().where('website_id', '=', websiteId).orderBy('created_on').execute();

/** A checkout of two small shirts and a medium one; the order's id. */
async function checkedOut(site: Site, overrides: Record<string, unknown> = {}, c = ctx): Promise<string> {
  const { small, medium } = await shirt(site, 3, overrides);
  const shopper = new Shopper(c, site.websiteId);
  seeOther(await shopper.add(small, 2));
  seeOther(await shopper.add(medium, 1));
  const confirmation = seeOther(await shopper.checkout());
  const orderId = /\/checkout\/orders\/([0-9a-f]{24})$/.exec(confirmation)?.[1];
  assert.ok(orderId, confirmation);
  return orderId;
}

const SHIPMENT = {
  shipDate: '2026-01-02T10:00:00Z',
  carrierName: 'UPS',
  service: 'Ground',
  trackingNumber: '1Z999AA10123456784',
  trackingUrl: 'https://track.example/1Z999AA10123456784?a=1&b=2',
};

describe('e-mails', () => {
  test('a checkout writes one order confirmation with the number, lines, totals and address', async () => {
    const site = await ctx.site();
    const orderId = await checkedOut(site);
    const order = (await site.call({ method: 'GET', url: `/1.0/commerce/orders/${orderId}` })).json();
    const [email, ...more] = await emailsOf(site.websiteId);
    assert.equal(more.length, 0);
    assert.ok(email);
    assert.equal(email.kind, 'order_confirmation');
    assert.equal(email.order_id, orderId);
    assert.equal(email.to_address, 'ada@example.com');
    assert.equal(email.status, 'NOT_SENT');
    assert.match(email.subject, new RegExp(`^Test Store: order #${order.orderNumber} confirmed$`));
    for (const body of [email.html, email.text]) {
      assert.ok(body.includes(`#${order.orderNumber}`), body);
      assert.ok(body.includes('Linen shirt (Size: S)'), body);
      assert.ok(body.includes('Linen shirt (Size: M)'), body);
      assert.ok(body.includes('15.00 USD'), body);
      assert.ok(body.includes(`${order.grandTotal.value} USD`), body);
      assert.ok(body.includes('12 Analytical Way'), body);
      assert.ok(body.includes('Test Store'), body);
    }
    assert.match(email.text, /^2 x Linen shirt \(Size: S\) {2}15\.00 USD$/m);
    assert.match(email.text, /^Total: 55\.00 USD$/m);
    // The website's time: its clock's, not the service's.
    assert.equal(email.created_on.getTime() >= Date.parse('2026-01-01T00:00:00Z'), true);
  });

  test('HTML escapes what the store and shopper wrote', async () => {
    const site = await ctx.site();
    await checkedOut(site, { name: '<script>alert(1)</script> & "more"' });
    const [email] = await emailsOf(site.websiteId);
    assert.ok(email);
    assert.ok(!email.html.includes('<script>'), email.html);
    assert.ok(
      email.html.includes('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;more&quot;'),
      email.html,
    );
    assert.ok(email.text.includes('<script>alert(1)</script> & "more"'), email.text);
  });

  test('a fulfillment with shouldSendNotification writes a shipping notice; without, none', async () => {
    const site = await ctx.site();
    const quiet = await checkedOut(site);
    const loud = await checkedOut(site);
    const fulfil = (orderId: string, shouldSendNotification: boolean) =>
      site.call({
        method: 'POST',
        url: `/1.0/commerce/orders/${orderId}/fulfillments`,
        payload: { shouldSendNotification, shipments: [SHIPMENT] },
      });
    assert.equal((await fulfil(quiet, false)).statusCode, 204);
    assert.equal((await fulfil(loud, true)).statusCode, 204);
    const notices = (await emailsOf(site.websiteId)).filter((e) => e.kind === 'shipping_notice');
    assert.equal(notices.length, 1);
    const [notice] = notices;
    assert.equal(notice!.order_id, loud);
    assert.equal(notice!.to_address, 'ada@example.com');
    assert.match(notice!.subject, /has shipped$/);
    for (const body of [notice!.html, notice!.text]) {
      assert.ok(body.includes('1Z999AA10123456784'), body);
      assert.ok(body.includes('UPS'), body);
    }
    assert.ok(notice!.html.includes('href="https://track.example/1Z999AA10123456784?a=1&amp;b=2"'));
    assert.ok(notice!.text.includes(SHIPMENT.trackingUrl));
  });

  test('a change that fails writes no e-mail', async () => {
    const site = await ctx.site();
    const res = await site.call({
      method: 'POST',
      url: `/1.0/commerce/orders/${'a'.repeat(24)}/fulfillments`,
      payload: { shouldSendNotification: true, shipments: [SHIPMENT] },
    });
    assert.equal(res.statusCode, 404, res.body);
    const orderId = await checkedOut(site);
    await cancelOrder(ctx.api, site.websiteId, orderId, { restock: true });
    // Canceled already: refused, and no second notice.
    await assert.rejects(cancelOrder(ctx.api, site.websiteId, orderId, { restock: true }));
    const bad = await site.call({
      method: 'POST',
      url: `/1.0/commerce/orders/${orderId}/fulfillments`,
      payload: { shouldSendNotification: true, shipments: [SHIPMENT] },
    });
    assert.equal(bad.statusCode, 400, bad.body);
    const kinds = (await emailsOf(site.websiteId)).map((e) => e.kind);
    assert.deepEqual(kinds, ['order_confirmation', 'cancellation_notice']);
  });

  test("a cancellation writes a notice to the buyer; another website's e-mails stay its own", async () => {
    const site = await ctx.site();
    const other = await ctx.site();
    const orderId = await checkedOut(site);
    await checkedOut(other);
    await cancelOrder(ctx.api, site.websiteId, orderId, { restock: true });
    const emails = await emailsOf(site.websiteId);
    const notice = emails.find((e) => e.kind === 'cancellation_notice');
    assert.ok(notice);
    assert.equal(notice.to_address, 'ada@example.com');
    assert.match(notice.subject, /canceled$/);
    assert.ok(notice.text.includes('canceled'));
    assert.equal(emails.length, 2);
    assert.equal((await emailsOf(other.websiteId)).length, 1);
  });
});

describe('the test control GET /_emporium/websites/{websiteId}/emails', () => {
  test("answers the site's e-mails, filtered, with the operator token only", async () => {
    const site = await ctx.site();
    const other = await ctx.site();
    const orderId = await checkedOut(site);
    await checkedOut(site);
    await checkedOut(other);
    await cancelOrder(ctx.api, site.websiteId, orderId, { restock: true });
    const url = `/_emporium/websites/${site.websiteId}/emails`;
    const get = (query = '', token: string | null = TOKEN) =>
      ctx.app.inject({
        method: 'GET',
        url: `${url}${query}`,
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
    assert.equal((await get('', null)).statusCode, 401);
    const all = await get();
    assert.equal(all.statusCode, 200, all.body);
    const emails = all.json().emails as { kind: string; orderId: string; websiteId: string; to: string }[];
    assert.deepEqual(
      emails.map((e) => e.kind),
      ['order_confirmation', 'order_confirmation', 'cancellation_notice'],
    );
    assert.ok(emails.every((e) => e.websiteId === site.websiteId && e.to === 'ada@example.com'));
    const canceled = (await get('?kind=cancellation_notice')).json().emails;
    assert.equal(canceled.length, 1);
    assert.equal(canceled[0].orderId, orderId);
    assert.equal(canceled[0].status, 'NOT_SENT');
    assert.equal((await get(`?orderId=${orderId}`)).json().emails.length, 2);
    assert.equal((await get('?to=ADA@example.com')).json().emails.length, 3);
    assert.equal((await get('?to=bob@example.com')).json().emails.length, 0);
    assert.equal((await get('?kind=nonsense')).statusCode, 400);
  });
});

describe('the owner pages of e-mails', () => {
  test("the owner fulfils with the notice ticked, and sees the site's e-mails; another owner gets a 404", async () => {
    const site = await ctx.site();
    const orderId = await checkedOut(site, { name: 'Mug <b>bold</b>' });
    const owner = await signedInOwner(ctx, site);
    const orderPage = await owner.get(`/sites/${site.websiteId}/orders/${orderId}`);
    assert.match(orderPage.body, /name="notify" value="1" checked/);
    const posted = await owner.post(`/sites/${site.websiteId}/orders/${orderId}/fulfillments`, {
      csrf: owner.csrf,
      carrierName: 'UPS',
      service: 'Ground',
      trackingNumber: 'TRACK-42',
      trackingUrl: '',
      shipDate: '2026-01-03',
      notify: '1',
    });
    assert.equal(posted.statusCode, 303, posted.body);

    const sitePage = await owner.get(`/sites/${site.websiteId}`);
    assert.match(sitePage.body, new RegExp(`<a href="/sites/${site.websiteId}/emails">E-mails</a>`));
    const list = await owner.get(`/sites/${site.websiteId}/emails`);
    assert.equal(list.statusCode, 200, list.body);
    assert.match(list.body, /Order confirmation/);
    assert.match(list.body, /Shipping notice/);
    assert.match(list.body, /ada@example\.com/);
    assert.match(list.body, /Kept \(no SMTP server\)/);
    const [notice] = (await emailsOf(site.websiteId)).filter((e) => e.kind === 'shipping_notice');
    assert.ok(notice);
    assert.ok(notice.text.includes('TRACK-42'));
    assert.ok(list.body.includes(`href="/sites/${site.websiteId}/emails/${notice.id}"`));

    const one = await owner.get(`/sites/${site.websiteId}/emails/${notice.id}`);
    assert.equal(one.statusCode, 200, one.body);
    const frame = /<iframe[^>]*\ssandbox\s[^>]*src="([^"]*)"/.exec(one.body)?.[1];
    assert.equal(frame, `/sites/${site.websiteId}/emails/${notice.id}/html`, one.body);
    assert.ok(!/<iframe[^>]*allow-/.test(one.body));
    assert.match(one.body, /<pre class="email">[^<]*TRACK-42/);
    // The frame's document: the e-mail with its inline styles allowed, and nothing else.
    const shown = await owner.get(frame);
    assert.equal(shown.statusCode, 200);
    assert.match(String(shown.headers['content-type']), /^text\/html/);
    assert.ok(shown.body.includes('Mug &lt;b&gt;bold&lt;/b&gt;'), shown.body);
    const policy = String(shown.headers['content-security-policy']);
    assert.match(policy, /default-src 'none'/);
    assert.match(policy, /style-src 'unsafe-inline'/);
    assert.match(policy, /(^|; )sandbox(;|$)/);
    assert.match(policy, /frame-ancestors 'self'/);

    const stranger = await signedInOwner(ctx, await ctx.site());
    assert.equal((await stranger.get(`/sites/${site.websiteId}/emails`)).statusCode, 404);
    assert.equal((await stranger.get(`/sites/${site.websiteId}/emails/${notice.id}`)).statusCode, 404);
    assert.equal((await stranger.get(frame)).statusCode, 404);
  });

  test('unticked, the fulfil form sends no notice', async () => {
    const site = await ctx.site();
    const orderId = await checkedOut(site);
    const owner = await signedInOwner(ctx, site);
    await owner.get(`/sites/${site.websiteId}/orders/${orderId}`);
    const posted = await owner.post(`/sites/${site.websiteId}/orders/${orderId}/fulfillments`, {
      csrf: owner.csrf,
      carrierName: 'UPS',
      service: 'Ground',
      trackingNumber: 'TRACK-43',
      trackingUrl: '',
      shipDate: '2026-01-03',
    });
    assert.equal(posted.statusCode, 303, posted.body);
    assert.deepEqual(
      (await emailsOf(site.websiteId)).map((e) => e.kind),
      ['order_confirmation'],
    );
  });
});

/** A message as the SMTP server took it. */
interface Received {
  from: string;
  to: string[];
  data: string;
}

/**
 * The least of an SMTP server, on 127.0.0.1: it takes every message, or answers 451 to the
 * sender while `failing` is more than 0 (counting down once an attempt).
 */
class SmtpServer extends EventEmitter {
  readonly received: Received[] = [];
  failing = 0;
  private readonly sockets = new Set<net.Socket>();
  private readonly server = net.createServer((socket) => {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    this.talk(socket);
  });

  async start(): Promise<number> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return (this.server.address() as net.AddressInfo).port;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.server.close();
  }

  private talk(socket: net.Socket): void {
    socket.on('error', () => {});
    let buffer = '';
    let data: string[] | null = null;
    let message: Received = { from: '', to: [], data: '' };
    const say = (line: string) => socket.write(`${line}\r\n`);
    say('220 test.smtp ESMTP');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      let end: number;
      while ((end = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (data) {
          if (line !== '.') {
            data.push(line.startsWith('..') ? line.slice(1) : line);
            continue;
          }
          message.data = data.join('\r\n');
          data = null;
          this.received.push(message);
          say('250 queued');
          this.emit('message', message);
          message = { from: '', to: [], data: '' };
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') say('250 test.smtp');
        else if (verb === 'MAIL') {
          if (this.failing > 0) {
            this.failing--;
            say('451 try again later');
          } else {
            message.from = line;
            say('250 ok');
          }
        } else if (verb === 'RCPT') {
          message.to.push(/<([^>]*)>/.exec(line)?.[1] ?? '');
          say('250 ok');
        } else if (verb === 'DATA') {
          data = [];
          say('354 go ahead');
        } else if (verb === 'RSET' || verb === 'NOOP') say('250 ok');
        else if (verb === 'QUIT') {
          say('221 bye');
          socket.end();
        } else say('502 not implemented');
      }
    });
  }
}

/** A MIME message's text with its parts decoded (base64 and quoted-printable), as a mail reader shows it. */
function mimeText(data: string): string {
  return data
    .split(/\r\n--[^\r\n]+/)
    .map((part) => {
      const [head = '', ...rest] = part.split('\r\n\r\n');
      const body = rest.join('\r\n\r\n');
      if (/content-transfer-encoding: base64/i.test(head))
        return Buffer.from(body, 'base64').toString('utf8');
      if (/content-transfer-encoding: quoted-printable/i.test(head)) {
        const bytes = body
          .replace(/=\r\n/g, '')
          .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
        return Buffer.from(bytes, 'latin1').toString('utf8');
      }
      return body;
    })
    .join('\n');
}

/** Waits until the website's e-mails all have left PENDING (the worker is in this process). */
function settled(c: TestContext, websiteId: string) {
  return until(
    () => emailsOf(websiteId, c),
    (emails) => emails.length > 0 && emails.every((e) => e.status !== 'PENDING'),
    'the e-mails to leave PENDING',
  );
}

describe('e-mails over SMTP', () => {
  let smtp: SmtpServer;
  let sending: TestContext;
  before(async () => {
    smtp = new SmtpServer();
    const port = await smtp.start();
    sending = await testApp({
      logLevel: 'silent',
      emailWorkers: 1,
      emails: {
        smtp: { url: `smtp://127.0.0.1:${port}`, from: 'store@example.com' },
        retryDelayMs: () => 0,
        attempts: 3,
        timeoutMs: 5_000,
      },
    });
  });
  after(async () => {
    await sending.close();
    await smtp.stop();
  });

  test("a checkout's confirmation reaches the SMTP server, then is SENT", async () => {
    const site = await sending.site();
    const received = once(smtp, 'message');
    const orderId = await checkedOut(site, {}, sending);
    const [message] = (await received) as [Received];
    assert.deepEqual(message.to, ['ada@example.com']);
    assert.match(message.from, /<store@example\.com>/);
    assert.match(message.data, /^Subject: Test Store: order #\d+ confirmed$/m);
    assert.match(message.data, /^From: "?Test Store"? <store@example\.com>$/m);
    const [email] = await settled(sending, site.websiteId);
    assert.equal(email!.order_id, orderId);
    assert.equal(email!.status, 'SENT');
    assert.equal(email!.attempts, 1);
    assert.ok(email!.sent_on);
  });

  test('SC-5 a sealed confirmation is opened to be sent: the gift card codes reach the SMTP server, not the table', async () => {
    const site = await sending.site();
    const { of25 } = await giftCardProduct(site);
    const received = once(smtp, 'message');
    const { orderId, codes } = await buyGiftCards(sending, site, of25, 2);
    assert.equal(codes.length, 2);
    const [message] = (await received) as [Received];
    const body = mimeText(message.data);
    for (const code of codes) assert.ok(body.includes(code), `${code} is in the message sent`);
    const [email] = await settled(sending, site.websiteId);
    assert.equal(email!.order_id, orderId);
    assert.equal(email!.status, 'SENT');
    const row = JSON.stringify(email);
    for (const code of codes) assert.ok(!row.includes(code), 'the stored e-mail holds no code');
  });

  test('a failing server delays no checkout; the e-mail is retried, then SENT', async () => {
    const site = await sending.site();
    smtp.failing = 2;
    const started = Date.now();
    await checkedOut(site, {}, sending);
    assert.ok(Date.now() - started < 5_000);
    const [email] = await settled(sending, site.websiteId);
    assert.equal(email!.status, 'SENT');
    assert.equal(email!.attempts, 3);
    assert.match(email!.last_error ?? '', /451/);
  });

  test('after the last attempt fails, the e-mail is FAILED with the error', async () => {
    const site = await sending.site();
    smtp.failing = 3;
    await checkedOut(site, {}, sending);
    const [email] = await settled(sending, site.websiteId);
    assert.equal(email!.status, 'FAILED');
    assert.equal(email!.attempts, 3);
    assert.match(email!.last_error ?? '', /451/);
    smtp.failing = 0;
  });
});
