import type { EmailKind } from '../db/emails-schema.ts';
import type { Money } from '../shared/money.ts';
import type { AddressJson, ShipmentJson } from '../shared/order-model.ts';
import { markup, type Markup } from './markup.ts';

/**
 * The e-mails' words: each kind in HTML (escaped by `markup`) and in plain text, from the order as
 * its document holds it (orders/order-document.ts: money as the API's decimal strings).
 */

/** What an e-mail tells of an order; the order document's fields, and those of its row. */
export interface OrderForEmail {
  storeName: string;
  orderNumber: number;
  shippingAddress: AddressJson | null;
  lineItems: {
    productName: string;
    quantity: number;
    unitPricePaid: Money;
    variantOptions: { optionName: string; value: string }[] | null;
  }[];
  shippingLines: { method: string; amount: Money }[];
  discountLines: { name: string; amount: Money }[];
  subtotal: Money;
  shippingTotal: Money;
  discountTotal: Money;
  taxTotal: Money;
  grandTotal: Money;
}

/** What the e-mail tells beside the order: the shipments just added, the amount just refunded. */
export interface EmailNews {
  shipments?: ShipmentJson[];
  refunded?: Money;
  /** Of a refund, what went back on the gift card that paid part of the order (none: all to the card). */
  refundedToGiftCard?: Money;
  /** The gift cards an order confirmation hands over: their codes, which only this e-mail carries. */
  giftCards?: { code: string; amount: Money }[];
  /** An order confirmation's download links, one a DIGITAL line (orders/download-links.ts). */
  downloads?: { productName: string; url: string; expiresOn: string }[];
}

export interface Rendered {
  subject: string;
  html: string;
  text: string;
}

const amount = (m: Money) => `${m.value} ${m.currency}`;

function lineName(line: OrderForEmail['lineItems'][number]): string {
  const options = (line.variantOptions ?? []).map((o) => `${o.optionName}: ${o.value}`).join(', ');
  return options ? `${line.productName} (${options})` : line.productName;
}

function addressLines(a: AddressJson | null): string[] {
  if (!a) return [];
  const name = [a.firstName, a.lastName].filter(Boolean).join(' ');
  const city = [a.postalCode, a.city].filter(Boolean).join(' ');
  return [name, a.address1, a.address2, city, a.state, a.countryCode, a.phone].filter(
    (line): line is string => Boolean(line),
  );
}

function totals(order: OrderForEmail): [string, string][] {
  const rows: [string, string][] = [['Subtotal', amount(order.subtotal)]];
  for (const s of order.shippingLines) rows.push([s.method, amount(s.amount)]);
  for (const d of order.discountLines) rows.push([`Discount: ${d.name}`, `-${amount(d.amount)}`]);
  if (order.taxTotal.value.replace(/[0.]/g, '') !== '') rows.push(['Tax', amount(order.taxTotal)]);
  rows.push(['Total', amount(order.grandTotal)]);
  return rows;
}

function orderHtml(order: OrderForEmail): Markup {
  const address = addressLines(order.shippingAddress);
  return markup`<table role="presentation" style="border-collapse:collapse;width:100%">
      <thead>
        <tr><th align="left">Item</th><th align="right">Qty</th><th align="right">Price</th></tr>
      </thead>
      <tbody>
        ${order.lineItems.map(
          (line) =>
            markup`<tr><td>${lineName(line)}</td><td align="right">${line.quantity}</td><td align="right">${amount(line.unitPricePaid)}</td></tr>`,
        )}
      </tbody>
      <tfoot>
        ${totals(order).map(
          ([label, value]) => markup`<tr><td colspan="2">${label}</td><td align="right">${value}</td></tr>`,
        )}
      </tfoot>
    </table>
    ${address.length ? markup`<h2>Shipping to</h2><p>${address.map((line, i) => markup`${i ? markup`<br />` : ''}${line}`)}</p>` : ''}`;
}

function orderText(order: OrderForEmail): string {
  const address = addressLines(order.shippingAddress);
  return [
    ...order.lineItems.map((line) => `${line.quantity} x ${lineName(line)}  ${amount(line.unitPricePaid)}`),
    '',
    ...totals(order).map(([label, value]) => `${label}: ${value}`),
    ...(address.length ? ['', 'Shipping to:', ...address] : []),
  ].join('\n');
}

function page(order: OrderForEmail, heading: string, intro: Markup, body: Markup): string {
  return markup`<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><title>${heading}</title></head>
  <body style="font-family:sans-serif;max-width:40em;margin:auto">
    <p><strong>${order.storeName}</strong></p>
    <h1>${heading}</h1>
    ${intro}
    ${body}
  </body>
</html>
`.value;
}

function shipmentHtml(s: ShipmentJson): Markup {
  // Only a web address is a link; anything else is shown as text.
  const url = s.trackingUrl && /^https?:\/\//i.test(s.trackingUrl) ? s.trackingUrl : null;
  return markup`<h2>Shipment</h2>
    <p>
      Carrier: ${s.carrierName}${s.service ? markup` (${s.service})` : ''}<br />
      Tracking number: ${s.trackingNumber}
      ${url ? markup`<br /><a href="${url}">Track your package</a>` : s.trackingUrl ? markup`<br />${s.trackingUrl}` : ''}
    </p>`;
}

function giftCardsHtml(cards: NonNullable<EmailNews['giftCards']>): Markup | string {
  if (!cards.length) return '';
  return markup`<h2>Your gift cards</h2>
    <p>Each code is paid at checkout, up to its balance. Keep it safe: whoever has the code can spend it.</p>
    <ul>
      ${cards.map((card) => markup`<li><code>${card.code}</code>: ${amount(card.amount)}</li>`)}
    </ul>`;
}

function giftCardsText(cards: NonNullable<EmailNews['giftCards']>): string[] {
  if (!cards.length) return [];
  return [
    'Your gift cards (each code is paid at checkout, up to its balance; keep it safe):',
    ...cards.map((card) => `${card.code}: ${amount(card.amount)}`),
    '',
  ];
}

/** "2026-05-04 10:00 UTC": when a link stops working, in the e-mail's words. */
const until = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

function downloadsHtml(links: NonNullable<EmailNews['downloads']>): Markup | string {
  if (!links.length) return '';
  return markup`<h2>Your downloads</h2>
    <p>Each link works until the time beside it, a few times over. Keep it to yourself.</p>
    <ul>
      ${links.map((link) => markup`<li><a href="${link.url}">Download ${link.productName}</a> (until ${until(link.expiresOn)})</li>`)}
    </ul>`;
}

function downloadsText(links: NonNullable<EmailNews['downloads']>): string[] {
  if (!links.length) return [];
  return [
    'Your downloads (each link works until the time beside it, a few times over):',
    ...links.map((link) => `${link.productName} (until ${until(link.expiresOn)}): ${link.url}`),
    '',
  ];
}

function shipmentText(s: ShipmentJson): string {
  return [
    `Carrier: ${s.carrierName}${s.service ? ` (${s.service})` : ''}`,
    `Tracking number: ${s.trackingNumber}`,
    ...(s.trackingUrl ? [`Track your package: ${s.trackingUrl}`] : []),
  ].join('\n');
}

/** The e-mail of `kind` about `order`, with its news (a shipping notice's shipments, a refund's amount). */
export function renderOrderEmail(kind: EmailKind, order: OrderForEmail, news: EmailNews = {}): Rendered {
  const n = `#${order.orderNumber}`;
  const shipments = news.shipments ?? [];
  switch (kind) {
    case 'order_confirmation': {
      const heading = `Thank you for your order ${n}`;
      const intro = `We have received your order ${n} and will let you know when it ships.`;
      const cards = news.giftCards ?? [];
      const links = news.downloads ?? [];
      return {
        subject: `${order.storeName}: order ${n} confirmed`,
        html: page(
          order,
          heading,
          markup`<p>${intro}</p>${giftCardsHtml(cards)}${downloadsHtml(links)}`,
          orderHtml(order),
        ),
        text:
          [
            order.storeName,
            '',
            heading,
            '',
            intro,
            '',
            ...giftCardsText(cards),
            ...downloadsText(links),
            orderText(order),
          ].join('\n') + '\n',
      };
    }
    case 'shipping_notice': {
      const heading = `Your order ${n} has shipped`;
      const intro = `Good news: your order ${n} is on its way.`;
      return {
        subject: `${order.storeName}: order ${n} has shipped`,
        html: page(order, heading, markup`<p>${intro}</p>${shipments.map(shipmentHtml)}`, orderHtml(order)),
        text:
          [
            order.storeName,
            '',
            heading,
            '',
            intro,
            '',
            ...shipments.map(shipmentText),
            '',
            orderText(order),
          ].join('\n') + '\n',
      };
    }
    case 'cancellation_notice': {
      const heading = `Your order ${n} was canceled`;
      const intro = `${order.storeName} has canceled your order ${n}. Nothing will be shipped.`;
      return {
        subject: `${order.storeName}: order ${n} canceled`,
        html: page(order, heading, markup`<p>${intro}</p>`, orderHtml(order)),
        text: [order.storeName, '', heading, '', intro, '', orderText(order)].join('\n') + '\n',
      };
    }
    case 'refund_notice': {
      const refunded = news.refunded ? amount(news.refunded) : 'an amount';
      const heading = `A refund for your order ${n}`;
      const toCard = 'It goes back to the card you paid with; your bank may take a few days to show it.';
      // An order paid partly by gift card is refunded to the card first, then to the gift card.
      const where = !news.refundedToGiftCard
        ? toCard
        : news.refundedToGiftCard.value === news.refunded?.value
          ? 'It goes back on the gift card you paid with, ready to spend.'
          : `Of it, ${amount(news.refundedToGiftCard)} goes back on the gift card you paid with, ready to spend, and the rest to the card you paid with; your bank may take a few days to show it.`;
      const intro = `${order.storeName} has refunded ${refunded} for your order ${n}. ${where}`;
      return {
        subject: `${order.storeName}: ${refunded} refunded for order ${n}`,
        html: page(order, heading, markup`<p>${intro}</p>`, orderHtml(order)),
        text: [order.storeName, '', heading, '', intro, '', orderText(order)].join('\n') + '\n',
      };
    }
  }
}
