/**
 * Request and response types, all taken from the generated `paths` of openapi.json (the server's
 * route schemas), so that a change on the server shows up here as a type error.
 */
import type { paths } from './generated/openapi.js';

export type { paths };

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;

/** The JSON request body of an operation. */
export type RequestBody<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

/** The JSON response body of an operation for a status. */
export type ResponseBody<P extends keyof paths, M extends Method, S extends number = 200> = Operation<
  P,
  M
>['responses'] extends { [K in S]: { content: { 'application/json': infer R } } }
  ? R
  : never;

/** The query parameters of an operation. */
export type QueryParams<P extends keyof paths, M extends Method> = NonNullable<
  Operation<P, M>['parameters']['query']
>;

type ProductsPath = '/1.1/commerce/products';
type ProductPath = '/1.1/commerce/products/{productId}';
type ImagePath = '/1.1/commerce/products/{productId}/images/{imageId}';
type VariantsPath = '/1.1/commerce/products/{productId}/variants';
type VariantPath = '/1.1/commerce/products/{productId}/variants/{variantId}';
type SubscriptionsPath = '/1.0/webhook_subscriptions';
type SubscriptionPath = '/1.0/webhook_subscriptions/{id}';
type OrdersPath = '/1.0/commerce/orders';
type OrderPath = '/1.0/commerce/orders/{id}';
type TransactionsPath = '/1.0/commerce/transactions';
type ProfilesPath = '/1.0/profiles';

export type ProductList = ResponseBody<ProductsPath, 'get'>;
export type Product = ResponseBody<ProductPath, 'post'>;
export type ProductListParams = QueryParams<ProductsPath, 'get'>;
export type ProductCreate = RequestBody<ProductsPath, 'post'>;
export type ProductUpdate = RequestBody<ProductPath, 'post'>;
export type Pagination = ProductList['pagination'];

export type ProductImage = ResponseBody<ImagePath, 'post'>;
export type ProductImageUpdate = RequestBody<ImagePath, 'post'>;
export type ImageUploaded = ResponseBody<'/1.1/commerce/products/{productId}/images', 'post', 202>;
export type ImageStatus = ResponseBody<`${ImagePath}/status`, 'get'>;
export type ImageOrder = RequestBody<`${ImagePath}/order`, 'post'>;

export type ProductVariant = ResponseBody<VariantsPath, 'post', 201>;
export type VariantCreate = RequestBody<VariantsPath, 'post'>;
export type VariantUpdate = RequestBody<VariantPath, 'post'>;
export type VariantImage = RequestBody<`${VariantPath}/image`, 'post'>;

type ProductsV2Path = '/v2/commerce/products';
type ProductV2Path = '/v2/commerce/products/{productId}';
type ImageV2Path = '/v2/commerce/products/{productId}/images/{imageId}';
type VariantsV2Path = '/v2/commerce/products/{productId}/variants';
type VariantV2Path = '/v2/commerce/products/{productId}/variants/{variantId}';

export type ProductV2List = ResponseBody<ProductsV2Path, 'get'>;
/** A v2 product: a union by `type`, each type with exactly its own fields (narrow on `type`). */
export type ProductV2 = ResponseBody<ProductV2Path, 'post'>;
/** PHYSICAL, SERVICE, GIFT_CARD or DIGITAL. */
export type ProductV2Type = ProductV2['type'];
export type PhysicalProductV2 = Extract<ProductV2, { type: 'PHYSICAL' }>;
export type ServiceProductV2 = Extract<ProductV2, { type: 'SERVICE' }>;
export type GiftCardProductV2 = Extract<ProductV2, { type: 'GIFT_CARD' }>;
export type DigitalProductV2 = Extract<ProductV2, { type: 'DIGITAL' }>;
/** `type`: one product type or several (sent comma-separated); every type when left out. */
export type ProductV2ListParams = Omit<QueryParams<ProductsV2Path, 'get'>, 'type'> & {
  type?: ProductV2Type | readonly ProductV2Type[];
};
/** PHYSICAL, SERVICE or GIFT_CARD (DIGITAL: 405), each with its own fields. */
export type ProductV2Create = RequestBody<ProductsV2Path, 'post'>;
/** Also takes `seoData` and `productAttributeNames` for `seoOptions` and `variantAttributes`. */
export type ProductV2Update = RequestBody<ProductV2Path, 'post'>;

export type ProductImageV2 = ResponseBody<ImageV2Path, 'post'>;
export type ProductImageV2Update = RequestBody<ImageV2Path, 'post'>;
export type ImageV2Uploaded = ResponseBody<'/v2/commerce/products/{productId}/images', 'post', 202>;
export type ImageV2Status = ResponseBody<`${ImageV2Path}/status`, 'get'>;

/** A v2 variant: PHYSICAL (with `gtin`, `mpn`), SERVICE or GIFT_CARD (`sku` and `basePrice`). */
export type ProductVariantV2 = ResponseBody<VariantsV2Path, 'post', 201>;
export type VariantV2Create = RequestBody<VariantsV2Path, 'post'>;
export type VariantV2Update = RequestBody<VariantV2Path, 'post'>;

/**
 * The types of one products API version, which the shared resource classes
 * (`Products`, `Images`, `Variants`) are generic over.
 */
export interface ProductApiTypes {
  product: { id: string; modifiedOn: string };
  list: { products: unknown[]; pagination: Pagination };
  listParams: object;
  create: object;
  update: object;
  variant: object;
  variantCreate: object;
  variantUpdate: object;
  image: object;
  imageUpdate: object;
  imageUploaded: { imageId: string };
  imageStatus: { id: string; status: string };
}

/** `client.products`: `/1.1/commerce/products`, PHYSICAL and DIGITAL products only. */
export interface ProductApi11 extends ProductApiTypes {
  product: Product;
  list: ProductList;
  listParams: ProductListParams;
  create: ProductCreate;
  update: ProductUpdate;
  variant: ProductVariant;
  variantCreate: VariantCreate;
  variantUpdate: VariantUpdate;
  image: ProductImage;
  imageUpdate: ProductImageUpdate;
  imageUploaded: ImageUploaded;
  imageStatus: ImageStatus;
}

/** `client.v2.products`: `/v2/commerce/products`, every product type. */
export interface ProductApiV2 extends ProductApiTypes {
  product: ProductV2;
  list: ProductV2List;
  listParams: ProductV2ListParams;
  create: ProductV2Create;
  update: ProductV2Update;
  variant: ProductVariantV2;
  variantCreate: VariantV2Create;
  variantUpdate: VariantV2Update;
  image: ProductImageV2;
  imageUpdate: ProductImageV2Update;
  imageUploaded: ImageV2Uploaded;
  imageStatus: ImageV2Status;
}

export type StorePageList = ResponseBody<'/1.0/commerce/store_pages', 'get'>;
export type StorePage = StorePageList['storePages'][number];
export type Website = ResponseBody<'/1.0/authorization/website', 'get'>;
export type Member = ResponseBody<'/1.0/authorization/member', 'get'>;

export type InventoryList = ResponseBody<'/1.0/commerce/inventory', 'get'>;
export type InventoryItem = InventoryList['inventory'][number];
export type InventoryAdjustment = RequestBody<'/1.0/commerce/inventory/adjustments', 'post'>;

export type OrderList = ResponseBody<OrdersPath, 'get'>;
export type Order = ResponseBody<OrderPath, 'get'>;
export type OrderLineItem = Order['lineItems'][number];
/** `paymentStates` may also be given as an array: it is sent comma-separated, as the server reads it. */
export type OrderListParams = Omit<QueryParams<OrdersPath, 'get'>, 'paymentStates'> & {
  paymentStates?: string | readonly string[];
};
export type OrderCreate = RequestBody<OrdersPath, 'post'>;
/** The created order as the import answers it: with the `idempotencyKey` it was sent with. */
export type CreatedOrder = ResponseBody<OrdersPath, 'post', 201>;
export type OrderFulfillment = RequestBody<`${OrderPath}/fulfillments`, 'post'>;
export type Shipment = NonNullable<OrderFulfillment['shipments']>[number];

export type TransactionList = ResponseBody<TransactionsPath, 'get'>;
export type TransactionDocument = TransactionList['documents'][number];
export type TransactionListParams = QueryParams<TransactionsPath, 'get'>;

export type ProfileList = ResponseBody<ProfilesPath, 'get'>;
export type Profile = ProfileList['profiles'][number];
export type ProfileListParams = QueryParams<ProfilesPath, 'get'>;

type SummariesPath = '/v1/analytics/transaction-summaries';
export type TransactionSummariesRequest = RequestBody<SummariesPath, 'post'>;
export type TransactionSummaries = ResponseBody<SummariesPath, 'post'>;
/** `{ contactId, transactionsSummary }`: one for each contact id sent, in the order sent. */
export type TransactionsSummaryWrapper = TransactionSummaries['transactionsSummaryWrappers'][number];
/** The summary a profile carries (`profile.transactionsSummary`). */
export type TransactionsSummary = TransactionsSummaryWrapper['transactionsSummary'];

export type WebhookSubscriptionList = ResponseBody<SubscriptionsPath, 'get'>;
export type WebhookSubscription = ResponseBody<SubscriptionPath, 'get'>;
/** A subscription as created: with its `secret`, shown only then and on rotation. */
export type WebhookSubscriptionWithSecret = ResponseBody<SubscriptionsPath, 'post', 201>;
export type WebhookSubscriptionCreate = RequestBody<SubscriptionsPath, 'post'>;
export type WebhookSubscriptionUpdate = RequestBody<SubscriptionPath, 'post'>;
export type RotatedSecret = ResponseBody<`${SubscriptionPath}/actions/rotateSecret`, 'post'>;
export type TestNotification = RequestBody<`${SubscriptionPath}/actions/sendTestNotification`, 'post'>;
export type TestNotificationResult = ResponseBody<`${SubscriptionPath}/actions/sendTestNotification`, 'post'>;

type DiscountsPath = '/v1/commerce/discounts';
type DiscountPath = '/v1/commerce/discounts/{discountId}';

export type DiscountList = ResponseBody<DiscountsPath, 'get'>;
export type Discount = DiscountList['discounts'][number];
type DiscountQuery = QueryParams<DiscountsPath, 'get'>;
/** The list's query: the type filters also as arrays, paging and limitedUseOnly as numbers and a boolean. */
export type DiscountListParams = Omit<
  DiscountQuery,
  'criteria' | 'template' | 'trigger' | 'offset' | 'limit' | 'limitedUseOnly'
> & {
  criteria?: string | readonly string[];
  template?: string | readonly string[];
  trigger?: string | readonly string[];
  /** 0 or more; default 0. */
  offset?: number;
  /** 1 to 1000; default 50. */
  limit?: number;
  limitedUseOnly?: boolean;
};
export type DiscountCreate = RequestBody<DiscountsPath, 'post'>;
/** A whole discount: read-only fields may be left in (a discount as fetched) and are ignored. */
export type DiscountReplace = RequestBody<DiscountPath, 'put'>;

export type FulfillmentOptionList = ResponseBody<'/v1/fulfillments/fulfillment-options', 'get'>;
export type FulfillmentOption = FulfillmentOptionList['fulfillmentOptions'][number];
type ContactsPath = '/v1/contacts';
type ContactPath = '/v1/contacts/{contactId}';
type AddressBookPath = '/v1/contacts/{contactId}/address-book';
type AddressBookEntryPath = '/v1/contacts/{contactId}/address-book/{addressBookEntryId}';

export type ContactList = ResponseBody<ContactsPath, 'get'>;
export type Contact = ContactList['contacts'][number];
export type ContactListParams = QueryParams<ContactsPath, 'get'>;
export type ContactQuery = RequestBody<`${ContactsPath}/query`, 'post'>;
export type ContactCreate = RequestBody<ContactsPath, 'post'>;
export type ContactUpdate = RequestBody<ContactPath, 'patch'>;
export type AddressBookList = ResponseBody<AddressBookPath, 'get'>;
export type AddressBookEntry = AddressBookList['addressBook']['addressBookEntries'][number];
export type AddressBookListParams = QueryParams<AddressBookPath, 'get'>;
export type AddressBookEntryInput = RequestBody<AddressBookPath, 'post'>;
export type AddressBookEntryReplace = RequestBody<AddressBookEntryPath, 'put'>;
