type Timestamp = Date;

/**
 * One download link of an order's DIGITAL line (orders/download-links.ts, migration 030): when it
 * stops working and how often it was used. The link's signature is never stored; it is computed
 * again from these columns under the server's key.
 */
export interface OrderDownloadsTable {
  id: string;
  website_id: string;
  order_id: string;
  /** The order line's id, as in the order document. */
  line_id: string;
  /** The DIGITAL product the line sold: its file now is what the link serves. */
  product_id: string;
  /** The website's time at which the link stops working. */
  expires_at: Timestamp;
  downloads: number;
  created_at: Timestamp;
}
