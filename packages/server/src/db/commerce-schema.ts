import type { ColumnType } from 'kysely';
import type { AddressJson, FulfillmentStatus, ShipmentJson } from '../shared/order-model.ts';

/** The tables of orders, their transaction documents and buyer profiles (see schema.ts). */
type Timestamp = Date;

export interface ProfilesTable {
  id: string;
  website_id: string;
  email: string;
  first_name: string;
  last_name: string;
  has_account: boolean;
  accepts_marketing: boolean;
  address: AddressJson | null;
  order_count: number;
  total_order_minor: number;
  total_refund_minor: number;
  first_order_on: Timestamp | null;
  last_order_on: Timestamp | null;
  created_on: Timestamp;
  /** The contact's fields (platform-surface 2.6.1, migration 018). */
  locale: string | null;
  /** Null on rows written before migration 018: created_on stands in. */
  email_created_on: Timestamp | null;
  marketing_joined_on: Timestamp | null;
  marketing_left_on: Timestamp | null;
}

/** An entry of a contact's address book (platform-surface 2.6.1). */
export interface AddressBookEntriesTable {
  id: string;
  website_id: string;
  contact_id: string;
  default_shipping: boolean;
  first_name: string | null;
  last_name: string | null;
  line1: string | null;
  line2: string | null;
  city: string | null;
  region: string | null;
  postal_code: string | null;
  country_code: string;
  phone_number: string | null;
  created_on: Timestamp;
}

export interface OrdersTable {
  id: string;
  website_id: string;
  /** Given last in the placing transaction; never null once committed. */
  order_number: ColumnType<number, number | null, number>;
  channel: string;
  customer_id: string | null;
  customer_email: string | null;
  fulfillment_status: FulfillmentStatus;
  fulfilled_on: Timestamp | null;
  /** jsonb: written as JSON text, since `pg` would send an array as a PostgreSQL array. */
  fulfillments: ColumnType<ShipmentJson[], string, string>;
  payment_state: string;
  grand_total_minor: number;
  /** Refunded in all (migration 029); the document's refundedTotal says the same on the wire. */
  refunded_total_minor: ColumnType<number, number | undefined, number>;
  placed_on: Timestamp;
  modified_on: Timestamp;
  /** The rest of the order as sent, in wire order (orders/order-document.ts). */
  document: string | object;
  /** Whether placing it took its lines from stock; null: placed before this was recorded. */
  stock_taken: boolean | null;
}

/** One refund of an order (orders/refund-order.ts, migration 029). */
export interface OrderRefundsTable {
  id: string;
  website_id: string;
  order_id: string;
  amount_minor: number;
  /** jsonb: written as JSON text. */
  lines: ColumnType<RefundedLine[], string, string>;
  shipping_minor: number;
  /** Whether the refunded lines' items went back in stock. */
  restocked: boolean;
  /** The website's time. */
  refunded_on: Timestamp;
  /** The test gateway's refund id (`re_...`), as the transaction document's refund has it. */
  external_transaction_id: string;
}

/** A line's part of a refund: how many of its items, for how much. */
export interface RefundedLine {
  lineId: string;
  quantity: number;
  amountMinor: number;
}

export interface OrderNumbersTable {
  website_id: string;
  last: number;
}

export interface OrderImportKeysTable {
  website_id: string;
  caller: string;
  key: string;
  request_digest: Buffer;
  order_id: string;
  created_at: Timestamp;
}

export interface TransactionDocumentsTable {
  id: string;
  website_id: string;
  order_id: string | null;
  created_on: Timestamp;
  modified_on: Timestamp;
  voided: boolean;
  /** The rest of the document as sent, in wire order. */
  document: string | object;
}
