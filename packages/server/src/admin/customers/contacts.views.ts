import { fromMinorUnits } from '../../shared/money.ts';
import type { ContactOrderRow } from '../../customers/contact-orders.repo.ts';
import type { AddressBookEntryT, ContactAddressT, ContactT } from '../../customers/contacts.schemas.ts';
import type { WebsitesTable } from '../../db/schema.ts';
import { html, type Html } from '../../pages/html.ts';
import { tableBox, when } from '../layout.ts';
import { money, PAYMENT_WORDS, STATUS_WORDS } from '../orders/orders.views.ts';
import { notice } from '../../pages/notice.ts';

/** The owner's contact pages: the list with its search, and one contact with orders and addresses. */

const fullName = (c: ContactT) => `${c.firstName} ${c.lastName}`.trim() || '(no name)';
const day = (micros: string | null) => (micros ? when(new Date(micros.slice(0, 23) + 'Z')) : 'never');

export function contactsListBody(
  site: WebsitesTable,
  view: { contacts: ContactT[]; q: string; next: string | null; paged: boolean; error?: string },
): Html {
  const base = `/sites/${site.id}/contacts`;
  const query = (cursor: string) =>
    `${base}?${new URLSearchParams({ ...(view.q && { q: view.q }), cursor })}`;
  const rows = view.contacts.map(
    (c) =>
      html`<tr>
        <td><a href="${base}/${c.id}">${fullName(c)}</a></td>
        <td>${c.primaryEmail.email}</td>
        <td>${c.primaryEmail.acceptsMarketing.acceptsMarketing ? 'Yes' : 'No'}</td>
        <td>${day(c.createdOn)}</td>
      </tr>`,
  );
  return html`<p><a href="/sites/${site.id}">${site.title}</a></p>
    <form method="get" action="${base}" role="search">
      <label for="q">Search by name or e-mail</label>
      <input
        id="q"
        name="q"
        type="search"
        maxlength="200"
        value="${view.q}"
        ${view.error ? html`aria-invalid="true" aria-describedby="q-error"` : ''}
      />
      ${view.error ? html`<p id="q-error" class="notice error" role="alert">${view.error}</p>` : ''}
      <button>Search</button>
    </form>
    ${
      rows.length
        ? tableBox(
            view.q ? `Contacts matching “${view.q}”` : 'Contacts',
            html`<table>
              <caption>
                Contacts${view.q ? html` matching “${view.q}”` : ''}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">E-mail</th>
                  <th scope="col">Accepts marketing</th>
                  <th scope="col">Added</th>
                </tr>
              </thead>
              <tbody>
                ${rows}
              </tbody>
            </table>`,
          )
        : notice(view.error ? undefined : 'No contacts found.', 'info')
    }
    <nav aria-label="Pages">
      ${view.paged ? html`<a href="${view.q ? `${base}?${new URLSearchParams({ q: view.q })}` : base}">First page</a>` : ''}
      ${view.next ? html`<a href="${query(view.next)}" rel="next">Next page</a>` : ''}
    </nav>`;
}

function address(a: ContactAddressT): Html {
  const lines = [
    `${a.firstName ?? ''} ${a.lastName ?? ''}`.trim(),
    a.line1,
    a.line2,
    [a.postalCode, a.city].filter(Boolean).join(' '),
    [a.region, a.countryCode].filter(Boolean).join(', '),
    a.phoneNumber,
  ].filter((line): line is string => typeof line === 'string' && line !== '');
  return html`<address>${lines.map((line, i) => html`${i ? html`<br />` : ''}${line}`)}</address>`;
}

export function contactBody(
  site: WebsitesTable,
  contact: ContactT,
  orders: ContactOrderRow[],
  book: { entries: AddressBookEntryT[]; defaultId: string | null; more: boolean },
): Html {
  const email = contact.primaryEmail;
  const orderRows = orders.map(
    (o) =>
      html`<tr>
        <td><a href="/sites/${site.id}/orders/${o.id}">#${o.order_number}</a></td>
        <td>${when(o.placed_on)}</td>
        <td>${money(fromMinorUnits(o.grand_total_minor, site.currency))}</td>
        <td>${PAYMENT_WORDS[o.payment_state] ?? o.payment_state}</td>
        <td>${STATUS_WORDS[o.fulfillment_status] ?? o.fulfillment_status}</td>
      </tr>`,
  );
  const entries = book.entries.map(
    (e) =>
      html`<li>
        ${address(e.address)}${e.id === book.defaultId ? html`<p>Default shipping address</p>` : ''}
      </li>`,
  );
  return html`<p><a href="/sites/${site.id}/contacts">All contacts of ${site.title}</a></p>
    <dl>
      <dt>E-mail</dt>
      <dd>${email.email}</dd>
      <dt>Accepts marketing</dt>
      <dd>
        ${email.acceptsMarketing.acceptsMarketing ? html`Yes, since ${day(email.acceptsMarketing.joinedOn)}` : 'No'}
      </dd>
      <dt>Locale</dt>
      <dd>${contact.locale ?? 'not set'}</dd>
      <dt>Added</dt>
      <dd>${day(contact.createdOn)}</dd>
    </dl>
    <h2>Orders</h2>
    ${
      orderRows.length
        ? tableBox(
            `Latest orders of ${fullName(contact)}`,
            html`<table>
              <caption>
                Latest orders of ${fullName(contact)}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Order</th>
                  <th scope="col">Placed</th>
                  <th scope="col">Total</th>
                  <th scope="col">Payment</th>
                  <th scope="col">Fulfillment</th>
                </tr>
              </thead>
              <tbody>
                ${orderRows}
              </tbody>
            </table>`,
          )
        : html`<p>No orders.</p>`
    }
    <h2>Address book</h2>
    ${
      entries.length
        ? html`<ul class="addresses">
            ${entries}
          </ul>`
        : html`<p>No addresses.</p>`
    }
    ${book.more ? html`<p>The address book has more addresses than are shown here.</p>` : ''}`;
}
