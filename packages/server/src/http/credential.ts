import type { ApiKeyCredential } from '../owner/api-keys.service.ts';

/** What an API request is authorized by. OAuth access tokens join this union with the OAuth server. */
export type Credential = ApiKeyCredential;

declare module 'fastify' {
  interface FastifyRequest {
    credential?: Credential;
  }
  interface FastifyContextConfig {
    /** The scope a route needs; a write scope implies its `.read` scope. */
    scope?: string;
  }
}
