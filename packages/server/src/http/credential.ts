/** What an API request is authorized by: a site's API key, or an app's OAuth access token. */
export type Credential = ApiKeyCredential | AccessTokenCredential;

/** A site's API key (sites/api-keys.service.ts). */
export interface ApiKeyCredential {
  kind: 'api_key';
  id: string;
  websiteId: string;
  scopes: readonly string[];
  /** What the scopes allow, each write scope with its read scope: found once, checked on every call. */
  held: ReadonlySet<string>;
}

/** An app's OAuth access token (oauth/access-tokens.ts). */
export interface AccessTokenCredential {
  kind: 'access_token';
  /** The grant: one authorization of one client for one website. */
  id: string;
  clientId: string;
  websiteId: string;
  scopes: readonly string[];
  /** What the scopes allow, each write scope with its read scope: found once, checked on every call. */
  held: ReadonlySet<string>;
}

declare module 'fastify' {
  interface FastifyRequest {
    credential?: Credential;
  }
  interface FastifyContextConfig {
    /** The scope a route needs; a write scope implies its `.read` scope. */
    scope?: string;
    /** Another scope that also passes, from an OAuth access token only. */
    oauthScope?: string;
    /** The body's fields may come wrapped as `{ present, value }` (http/change-wrapper.ts). */
    changeWrappers?: boolean;
    /** The Idempotency-Key header is required (http/idempotency-key.ts). */
    idempotencyKey?: boolean;
  }
}
