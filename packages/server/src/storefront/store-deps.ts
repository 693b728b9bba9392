import type { ApiDeps } from '../deps.ts';

/** What the storefront's routes receive: the services' dependencies and caches the API uses. */
export interface StoreDeps {
  api: ApiDeps;
  /** Cookies are `Secure` when the store is served over https (BASE_URL). */
  secure: boolean;
}
