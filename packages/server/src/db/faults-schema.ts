/** The table of injected faults (migration 027; see schema.ts and faults/). */
type Timestamp = Date;

/** What a rule does to a request it picks. */
export type FaultEffect = 'status' | 'latency' | 'reset' | 'slow_body';

export interface FaultRulesTable {
  id: string;
  website_id: string;
  /** An HTTP method, or null for any. */
  method: string | null;
  /** The path pattern: `*` matches any run of characters. */
  path: string;
  effect: FaultEffect;
  /** status: the answer's status (429, 500, 502, 503, 504). */
  status: number | null;
  /** status 429: the Retry-After seconds. */
  retry_after_s: number | null;
  /** latency: the delay, fixed (min = max) or drawn from min..max; slow_body: the time the body takes. */
  min_ms: number | null;
  max_ms: number | null;
  /** 0..1: the share of matching requests the rule picks. */
  probability: number;
  /** The seed of the rule's random numbers: the Nth matching request draws the Nth number. */
  seed: number;
  /** Faults still to inject (count), or null for no limit. */
  remaining: number | null;
  /** The count asked for, to show beside what remains. */
  count: number | null;
  /** The site's time from which the rule no longer applies, or null. */
  until: Timestamp | null;
  /** Narrowed to one app (OAuth client id), or one API key (its id); null for any credential. */
  client_id: string | null;
  api_key_id: string | null;
  created_at: Timestamp;
}
