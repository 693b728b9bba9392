import type { AccessTokenCredential } from '../oauth/access-tokens.ts';
import type { ApiKeyCredential } from '../sites/api-keys.service.ts';

/** What an API request is authorized by: a site's API key, or an app's OAuth access token. */
export type Credential = ApiKeyCredential | AccessTokenCredential;

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
