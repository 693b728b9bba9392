/** The OAuth tables' types for Kysely (see schema.ts), kept apart as the largest group. */
type Timestamp = Date;

export interface OAuthClientsTable {
  id: string;
  owner_id: string;
  name: string;
  /** Exactly as registered: the authorize endpoint compares byte for byte. */
  redirect_uris: string[];
  /** Where an owner is sent to connect a partner app (with website_id appended); null otherwise. */
  initiate_url: string | null;
  terms_url: string | null;
  privacy_url: string | null;
  secret_digest: Buffer;
  created_at: Timestamp;
  secret_rotated_at: Timestamp | null;
  /** A square PNG or SVG of at most 200 KB (oauth/client-icons.ts). */
  icon: Buffer | null;
  icon_type: 'image/png' | 'image/svg+xml' | null;
  icon_updated_at: Timestamp | null;
}

export interface OAuthGrantsTable {
  id: string;
  client_id: string;
  website_id: string;
  scopes: string[];
  /** access_type=offline: the code's tokens include a refresh token. */
  offline: boolean;
  redirect_uri: string;
  /** PKCE S256 challenge of the authorize request, if it sent one. */
  code_challenge: string | null;
  code_digest: Buffer;
  code_expires_at: Timestamp;
  code_used_at: Timestamp | null;
  created_at: Timestamp;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
  revoked_reason: string | null;
}

export type RetiredReason = 'confirmed' | 'sibling';

export interface OAuthRefreshTokensTable {
  id: string;
  grant_id: string;
  parent_id: string | null;
  token_digest: Buffer;
  expires_at: Timestamp;
  created_at: Timestamp;
  confirmed_at: Timestamp | null;
  retired_at: Timestamp | null;
  retired_reason: RetiredReason | null;
}

export interface OAuthAccessTokensTable {
  token_digest: Buffer;
  grant_id: string;
  refresh_id: string | null;
  /** Not read or updated since migration 023 (a pair is pending while its refresh token's
   * `confirmed_at` is null: db/functions/oauth_confirm_pair.sql); goes in a later release. */
  pending: boolean;
  expires_at: Timestamp;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
}

export interface OAuthAuthorizationRequestsTable {
  id: string;
  client_id: string;
  redirect_uri: string;
  scopes: string[];
  state: string;
  website_id: string | null;
  offline: boolean;
  code_challenge: string | null;
  owner_id: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  answered_at: Timestamp | null;
}
