import { Type, type Static, type TSchema } from 'typebox';
import { Money, MoneyInput, Pagination } from '../../http/common.schemas.ts';
import {
  Attributes,
  CreateProductBody,
  CreateVariantInput,
  MeasurementsInput,
  ProductImage,
  ProductMeasurements,
  ProductPricing,
  Product,
  SeoOptionsInput,
  StockInput,
  UpdateProductBody,
} from '../products.schemas.ts';
import { MAX_MPN } from '../product-types.ts';

/** Products v2 (platform-surface 2.5): one request schema for every type; product-types.ts says which fields each takes. */

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const ProductTypeV2 = Type.Union([
  Type.Literal('PHYSICAL'),
  Type.Literal('SERVICE'),
  Type.Literal('GIFT_CARD'),
  Type.Literal('DIGITAL'),
]);

const Gtin = Type.String({
  maxLength: 100,
  description: 'PHYSICAL only; 8, 12, 13 or 14 digits once spaces, - and _ are removed',
  examples: ['01234567890128'],
});
const Mpn = Type.String({
  maxLength: 200,
  description: `PHYSICAL only; 1 to ${MAX_MPN} letters and digits once spaces, - and _ are removed`,
  examples: ['MPN-1234'],
});

export const CreateVariantV2Body = Type.Object({
  sku: CreateVariantInput.properties.sku,
  pricing: Type.Object(
    { basePrice: MoneyInput, salePrice: Type.Optional(MoneyInput), onSale: Type.Optional(Type.Boolean()) },
    { description: 'GIFT_CARD: basePrice only' },
  ),
  stock: Type.Optional(StockInput),
  attributes: Type.Optional(Attributes),
  shippingMeasurements: Type.Optional(MeasurementsInput),
  measurements: Type.Optional(MeasurementsInput),
  gtin: Type.Optional(nullable(Gtin)),
  mpn: Type.Optional(nullable(Mpn)),
});

const { type: _type, variants: _variants, ...common } = CreateProductBody.properties;

export const CreateProductV2Body = Type.Object({
  type: { ...ProductTypeV2, description: 'DIGITAL (download) products cannot be created through v2: 405' },
  ...common,
  variants: Type.Optional(Type.Array(CreateVariantV2Body, { maxItems: 100 })),
  seoData: Type.Optional(nullable(SeoOptionsInput)),
});

export const UpdateProductV2Body = Type.Object({
  ...UpdateProductBody.properties,
  productAttributeNames: UpdateProductBody.properties.variantAttributes,
  seoData: Type.Optional(nullable(SeoOptionsInput)),
});

export const UpdateVariantV2Body = Type.Partial(Type.Omit(CreateVariantV2Body, ['stock']));

export type CreateProductV2Input = Static<typeof CreateProductV2Body>;
export type UpdateProductV2Input = Static<typeof UpdateProductV2Body>;
export type CreateVariantV2Input = Static<typeof CreateVariantV2Body>;
export type UpdateVariantV2Input = Static<typeof UpdateVariantV2Body>;

/* Responses: each type with exactly its own fields (2.5.1) */

const Stock = Type.Object({ quantity: Type.Integer(), unlimited: Type.Boolean() });
const VariantImage = nullable(ProductImage);

export const PhysicalVariant = Type.Object(
  {
    id: Type.String(),
    sku: Type.String(),
    pricing: ProductPricing,
    stock: Stock,
    attributes: Type.Record(Type.String(), Type.String()),
    shippingMeasurements: ProductMeasurements,
    image: VariantImage,
    gtin: nullable(Type.String()),
    mpn: nullable(Type.String()),
  },
  { title: 'PhysicalProductVariant' },
);

export const ServiceVariant = Type.Object(
  {
    id: Type.String(),
    sku: Type.String(),
    pricing: ProductPricing,
    stock: Stock,
    attributes: Type.Record(Type.String(), Type.String()),
    image: VariantImage,
  },
  { title: 'ServiceProductVariant' },
);

export const GiftCardVariant = Type.Object(
  { id: Type.String(), sku: Type.String(), pricing: Type.Object({ basePrice: Money }), image: VariantImage },
  { title: 'GiftCardProductVariant' },
);

export const ProductVariantV2 = Type.Union([PhysicalVariant, ServiceVariant, GiftCardVariant]);

// The fields every type shares, as 1.1 describes them.
const { id, storePageId, name, description, url, urlSlug, tags, isVisible } = Product.properties;
const head = { id, storePageId, name, description, url, urlSlug, tags, isVisible };
const { seoOptions, createdOn, modifiedOn } = Product.properties;
const tail = { seoOptions, createdOn, modifiedOn };
const images = Type.Array(ProductImage);

export const ProductV2 = Type.Union([
  Type.Object(
    {
      ...head,
      type: Type.Literal('PHYSICAL'),
      variantAttributes: Type.Array(Type.String()),
      variants: Type.Array(PhysicalVariant),
      images,
      ...tail,
    },
    { title: 'PhysicalProduct' },
  ),
  Type.Object(
    {
      ...head,
      type: Type.Literal('SERVICE'),
      variantAttributes: Type.Array(Type.String()),
      variants: Type.Array(ServiceVariant),
      images,
      ...tail,
    },
    { title: 'ServiceProduct' },
  ),
  Type.Object(
    { ...head, type: Type.Literal('GIFT_CARD'), variants: Type.Array(GiftCardVariant), images, ...tail },
    { title: 'GiftCardProduct' },
  ),
  Type.Object(
    {
      ...head,
      type: Type.Literal('DIGITAL'),
      images,
      pricing: nullable(ProductPricing),
      digitalGood: nullable(Type.Object({ id: Type.String(), filename: Type.String() })),
      ...tail,
    },
    { title: 'DigitalProduct' },
  ),
]);

export const ProductV2List = Type.Object({ products: Type.Array(ProductV2), pagination: Pagination });
export const ProductsV2ById = Type.Object({ products: Type.Array(ProductV2) });

export type ProductVariantV2T = Static<typeof ProductVariantV2>;

/** The product types a v2 list may name in `type`. */
export const ListProductsV2Query = Type.Object({
  cursor: Type.Optional(Type.String()),
  modifiedAfter: Type.Optional(Type.String()),
  modifiedBefore: Type.Optional(Type.String()),
  query: Type.Optional(
    Type.String({
      maxLength: 200,
      description: 'words that must all occur in the name, description, tags or SKUs',
    }),
  ),
  type: Type.Optional(
    Type.Union([Type.String(), Type.Array(Type.String())], {
      description: 'PHYSICAL, SERVICE, GIFT_CARD, DIGITAL: comma-separated or repeated; all when left out',
    }),
  ),
});
