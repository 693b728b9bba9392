/** The e-mails a store sends (migration 028; see schema.ts and emails/). */
type Timestamp = Date;

export type EmailKind = 'order_confirmation' | 'shipping_notice' | 'cancellation_notice' | 'refund_notice';

/** NOT_SENT: no SMTP server configured; kept only. PENDING until SENT, or FAILED after the last retry. */
export type EmailStatus = 'NOT_SENT' | 'PENDING' | 'SENT' | 'FAILED';

export interface EmailsTable {
  id: string;
  website_id: string;
  kind: EmailKind;
  order_id: string | null;
  to_address: string;
  subject: string;
  html: string;
  text: string;
  /** The website's time (its test clock). */
  created_on: Timestamp;
  status: EmailStatus;
  attempts: number;
  last_error: string | null;
  sent_on: Timestamp | null;
  leased_until: Timestamp | null;
  /**
   * The html and text sealed (emails/sealed.ts), for an e-mail that carries a secret such as a
   * gift card's code; the html and text columns then say only that it is sealed. Null otherwise.
   */
  sealed?: Buffer | null;
}
