/** The request log's table type for Kysely (see schema.ts and migrations/026-api-log.ts). */
import type { Generated } from 'kysely';

/** One API or token request of a website, as api-log/ keeps it: secrets removed, bodies cut. */
export interface ApiRequestsTable {
  /** In the order the lines were written; breaks ties of `at` in the newest-first order. */
  id: Generated<string>;
  website_id: string;
  /** When the request was answered, in the website's time (its latency before that). */
  at: Date;
  method: string;
  /** Path and query, as sent. */
  path: string;
  status: number;
  latency_ms: number;
  /** The request id, the contextId of error bodies and of the service's log lines. */
  context_id: string;
  credential_kind: 'api_key' | 'oauth';
  /** The API key's id, or the OAuth client's id. */
  credential_id: string;
  /** The injected fault the request met (`status 503`, `latency 800ms`...), if any. */
  fault: string | null;
  request_body: string | null;
  /** The request body was longer than what is kept (16 KB). */
  request_body_cut: boolean;
  response_body: string | null;
  response_body_cut: boolean;
}
