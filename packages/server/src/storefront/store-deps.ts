import type { ListCache } from '../catalog/list-cache.ts';
import type { ImageStorage } from '../media/storage.ts';
import type { OrderDeps } from '../orders/place-order.ts';

/** What the storefront's routes receive: the services' dependencies and caches the API uses. */
export interface StoreDeps {
  /** What the order and product services need, the API's caches among them. */
  api: OrderDeps & { lists: ListCache; storage: ImageStorage };
  /** Cookies are `Secure` when the store is served over https (BASE_URL). */
  secure: boolean;
}
