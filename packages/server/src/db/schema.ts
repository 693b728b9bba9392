/**
 * Table types for Kysely; the migrations are the source of truth and these follow them. JSON
 * columns hold plain objects, which `pg` serializes as JSON.
 */
import type {
  AddressBookEntriesTable,
  OrderImportKeysTable,
  OrderNumbersTable,
  OrdersTable,
  OrderRefundsTable,
  ProfilesTable,
  TransactionDocumentsTable,
} from './commerce-schema.ts';
import type {
  OAuthAccessTokensTable,
  OAuthAuthorizationRequestsTable,
  OAuthClientsTable,
  OAuthGrantsTable,
  OAuthRefreshTokensTable,
} from './oauth-schema.ts';
import type { DiscountRedemptionsTable, DiscountsTable } from './discounts-schema.ts';
import type { FaultRulesTable } from './faults-schema.ts';
import type { ApiRequestsTable } from './api-log-schema.ts';
import type { EmailsTable } from './emails-schema.ts';
import type { OrderDownloadsTable } from './downloads-schema.ts';
import type { GiftCardEventsTable, GiftCardsTable } from './gift-cards-schema.ts';

export type * from './oauth-schema.ts';
export type * from './commerce-schema.ts';
export type * from './discounts-schema.ts';
export type * from './faults-schema.ts';
export type * from './api-log-schema.ts';
export type * from './emails-schema.ts';
export type * from './downloads-schema.ts';
export type * from './gift-cards-schema.ts';

type Timestamp = Date;

export interface OwnersTable {
  id: string;
  email: string;
  /** Empty when not given. */
  first_name: string;
  last_name: string;
  password_hash: string;
  created_at: Timestamp;
}

export interface WebsitesTable {
  id: string;
  owner_id: string;
  title: string;
  currency: string;
  measurement_standard: 'IMPERIAL' | 'METRIC';
  language: string;
  time_zone: string;
  created_at: Timestamp;
  /** How far the website's test clock runs ahead of the service's (shared/clock.ts); 0 unless moved. */
  clock_shift_ms: number;
}

export interface StorePagesTable {
  id: string;
  website_id: string;
  title: string;
  url_slug: string;
  is_enabled: boolean;
  created_at: Timestamp;
}

export interface ApiKeysTable {
  id: string;
  website_id: string;
  name: string;
  scopes: string[];
  key_digest: Buffer;
  created_at: Timestamp;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
}

export interface ServerSecretsTable {
  name: string;
  value: Buffer;
}

/** Products v2's types (platform-surface 2.5.1); 1.x knows PHYSICAL and DIGITAL only. */
export type ProductType = 'PHYSICAL' | 'SERVICE' | 'GIFT_CARD' | 'DIGITAL';

export interface ProductsTable {
  id: string;
  website_id: string;
  store_page_id: string;
  type: ProductType;
  name: string;
  description: string;
  url_slug: string;
  tags: string[];
  is_visible: boolean;
  variant_attributes: string[];
  currency: string | null;
  base_price_minor: number | null;
  sale_price_minor: number | null;
  on_sale: boolean | null;
  seo_options: SeoOptionsRow | null;
  digital_good: { id: string; filename: string } | null;
  search_text: string;
  created_on: Timestamp;
  modified_on: Timestamp;
}

export interface SeoOptionsRow {
  title: string | null;
  description: string | null;
}

export interface VariantsTable {
  id: string;
  product_id: string;
  website_id: string;
  position: number;
  sku: string;
  attributes: Record<string, string>;
  currency: string;
  base_price_minor: number;
  sale_price_minor: number;
  on_sale: boolean;
  stock_quantity: number;
  stock_unlimited: boolean;
  weight_unit: string;
  weight_value: number;
  dimension_unit: string;
  length: number;
  width: number;
  height: number;
  image_id: string | null;
  /** PHYSICAL variants only (platform-surface 2.5.8), as sent but trimmed. */
  gtin: string | null;
  mpn: string | null;
  created_at: Timestamp;
}

export type ImageFormat = 'jpeg' | 'png' | 'gif' | 'webp';
export type ImageStatus = 'QUEUED' | 'PROCESSING' | 'READY' | 'ERROR';

export interface ImagesTable {
  id: string;
  product_id: string;
  website_id: string;
  /** 0-based and dense within the product: the orderIndex. */
  position: number;
  alt_text: string;
  file_name: string;
  format: ImageFormat;
  status: ImageStatus;
  /** The original's size, EXIF orientation applied: from its header, then from decoding it. */
  width: number;
  height: number;
  /** The widths written (api-details 3), ascending. */
  widths: number[];
  created_at: Timestamp;
  /** While PROCESSING: the worker that holds it (jobs/worker-lock.ts), null before migration 009. */
  worker_id: number | null;
  /** While PROCESSING: the job the worker holds, and which hand-out of it (pg-boss's retryCount). */
  job_id: string | null;
  job_attempt: number | null;
}

export type AuditKind =
  | 'login'
  | 'login_failed'
  | 'grant'
  | 'code_replay'
  | 'refresh_replay'
  | 'revocation'
  /** A test control acted on the site: its clock moved, a trigger or a fixture ran over HTTP. */
  | 'test_control';

export interface AuditEventsTable {
  id: string;
  at: Timestamp;
  kind: AuditKind;
  owner_id: string | null;
  website_id: string | null;
  client_id: string | null;
  ip: string | null;
  detail: Record<string, unknown>;
}

export interface OwnerSessionsTable {
  token_digest: Buffer;
  owner_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface WebhookSubscriptionsTable {
  id: string;
  website_id: string;
  client_id: string;
  endpoint_url: string;
  topics: string[];
  /** Moves on each rotation; the secret is derived from it (webhooks/signature.ts). */
  secret_version: number;
  created_on: Timestamp;
  updated_on: Timestamp;
}

export type DeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED' | 'CANCELLED';

export interface WebhookDeliveriesTable {
  id: string;
  website_id: string;
  client_id: string;
  subscription_id: string;
  topic: string;
  /** The subscription's URL and secret version when the event happened, for when it is gone. */
  endpoint_url: string;
  secret_version: number;
  /** The notification exactly as sent, every time. */
  body: string;
  status: DeliveryStatus;
  attempts: number;
  created_on: Timestamp;
  /** A failed attempt is retried until then (api-details 7: 48 hours). */
  retry_until: Timestamp;
  next_attempt_at: Timestamp | null;
  /** Held by the worker making an attempt, so two workers never post one delivery at once. */
  leased_until: Timestamp | null;
  completed_on: Timestamp | null;
  last_status_code: number | null;
  last_error: string | null;
}

export interface WebhookAttemptsTable {
  delivery_id: string;
  attempt: number;
  attempted_at: Timestamp;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

export interface InventoryAdjustmentKeysTable {
  website_id: string;
  caller: string;
  key: string;
  request_digest: Buffer;
  created_at: Timestamp;
}

/** Each website's change clock: the last modifiedOn it handed out (db/change-clock.ts). */
export interface ChangeClocksTable {
  website_id: string;
  stamp: Date;
}

export interface Database {
  owners: OwnersTable;
  websites: WebsitesTable;
  store_pages: StorePagesTable;
  api_keys: ApiKeysTable;
  server_secrets: ServerSecretsTable;
  products: ProductsTable;
  variants: VariantsTable;
  images: ImagesTable;
  oauth_clients: OAuthClientsTable;
  oauth_grants: OAuthGrantsTable;
  oauth_refresh_tokens: OAuthRefreshTokensTable;
  oauth_access_tokens: OAuthAccessTokensTable;
  audit_events: AuditEventsTable;
  owner_sessions: OwnerSessionsTable;
  oauth_authorization_requests: OAuthAuthorizationRequestsTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  inventory_adjustment_keys: InventoryAdjustmentKeysTable;
  change_clocks: ChangeClocksTable;
  profiles: ProfilesTable;
  orders: OrdersTable;
  order_numbers: OrderNumbersTable;
  order_refunds: OrderRefundsTable;
  order_import_keys: OrderImportKeysTable;
  transaction_documents: TransactionDocumentsTable;
  discounts: DiscountsTable;
  discount_redemptions: DiscountRedemptionsTable;
  address_book_entries: AddressBookEntriesTable;
  api_requests: ApiRequestsTable;
  emails: EmailsTable;
  fault_rules: FaultRulesTable;
  order_downloads: OrderDownloadsTable;
  gift_cards: GiftCardsTable;
  gift_card_events: GiftCardEventsTable;
}
