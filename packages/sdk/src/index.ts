/**
 * @emporium/sdk: the TypeScript client of the Emporium Commerce API and its OAuth 2.0
 * authorization server. Platform APIs only (fetch, WebCrypto): Node 22 or 24 and modern browsers.
 * Node-only helpers (a JSON-file token store, files from paths) are in `@emporium/sdk/node`.
 */
export { Emporium, type ApiRequest, type EmporiumOptions, type V2Resources } from './client.js';
export type { Products } from './resources/products.js';
export type { Images } from './resources/images.js';
export type { Variants } from './resources/variants.js';
export type { Discounts } from './resources/discounts.js';
export type { FulfillmentOptions } from './resources/fulfillment-options.js';
export {
  EmporiumOAuth,
  AUTHORIZE_PATH,
  TOKEN_PATH,
  type AuthorizationRequest,
  type AuthorizeUrlOptions,
  type EmporiumOAuthOptions,
  type Scope,
} from './oauth.js';
export {
  MemoryTokenStore,
  REFRESH_MARGIN_MS,
  type OAuthBinding,
  type TokenSet,
  type TokenStore,
} from './tokens.js';
export { verifyWebhook, SIGNATURE_HEADER, type RawBody } from './webhooks.js';
export {
  AbortError,
  AccessDenied,
  AuthenticationError,
  ConflictError,
  ConnectionError,
  EmporiumError,
  MethodNotAllowedError,
  NotFoundError,
  OAuthError,
  PermissionError,
  RateLimitError,
  ReauthorizationRequired,
  ServerError,
  StateMismatch,
  TimeoutError,
  ValidationError,
  type ApiErrorBody,
} from './errors.js';
export {
  ImageProcessingError,
  type UploadOptions,
  type UploadSource,
  type WaitOptions,
} from './resources/images.js';
export { PagedList, type Page } from './pagination.js';
export {
  Transport,
  type CallOptions,
  type FetchLike,
  type RequestSpec,
  type ResponseData,
  type TransportOptions,
} from './request.js';
export type * from './types.js';
