import { Type, type Static } from 'typebox';
import { Money, MoneyInput, Pagination } from '../http/common.schemas.ts';

/* Requests */

export const PricingInput = Type.Object({
  basePrice: MoneyInput,
  salePrice: Type.Optional(MoneyInput),
  onSale: Type.Optional(Type.Boolean()),
});

const Dimension = Type.Number({ minimum: 0, maximum: 1_000_000 });

export const MeasurementsInput = Type.Object({
  weight: Type.Optional(
    Type.Object({ unit: Type.Union([Type.Literal('POUND'), Type.Literal('KILOGRAM')]), value: Dimension }),
  ),
  dimensions: Type.Optional(
    Type.Object({
      unit: Type.Union([Type.Literal('INCH'), Type.Literal('CENTIMETER')]),
      length: Dimension,
      width: Dimension,
      height: Dimension,
    }),
  ),
});

export const Attributes = Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 100 }), {
  maxProperties: 6,
  propertyNames: { minLength: 1, maxLength: 100 },
});

/** Left out, or either field left out: a finite stock of 0 (api-details 6). */
export const StockInput = Type.Object({
  quantity: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
  unlimited: Type.Optional(Type.Boolean()),
});

export const CreateVariantInput = Type.Object({
  // Bounded loosely here: the 1-60 rule applies after trimming, in the service.
  sku: Type.String({
    maxLength: 1000,
    description: 'trimmed; 1 to 60 characters; unique within the website',
  }),
  pricing: PricingInput,
  stock: Type.Optional(StockInput),
  attributes: Type.Optional(Attributes),
  measurements: Type.Optional(MeasurementsInput),
  shippingMeasurements: Type.Optional(MeasurementsInput),
});

const ProductType = Type.Union([Type.Literal('PHYSICAL'), Type.Literal('DIGITAL')]);
const Name = Type.String({ maxLength: 200 });
const Description = Type.String({
  maxLength: 102_400,
  description: 'HTML; scripts, event handlers and javascript: URLs are removed',
});
const UrlSlug = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'alphanumerics and non-contiguous hyphens',
});
const Tags = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 });
const VariantAttributes = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 6 });
export const SeoOptionsInput = Type.Object(
  {
    title: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
  },
  { additionalProperties: false },
);

export const CreateProductBody = Type.Object({
  type: ProductType,
  storePageId: Type.String({ maxLength: 64 }),
  name: Type.Optional(Name),
  description: Type.Optional(Description),
  urlSlug: Type.Optional(UrlSlug),
  tags: Type.Optional(Tags),
  isVisible: Type.Optional(Type.Boolean()),
  variantAttributes: Type.Optional(VariantAttributes),
  variants: Type.Optional(Type.Array(CreateVariantInput, { maxItems: 100 })),
  pricing: Type.Optional(PricingInput),
  seoOptions: Type.Optional(Type.Union([SeoOptionsInput, Type.Null()])),
});

/** Partial update: the fields of creation but the type, the store page and the variants. */
export const UpdateProductBody = Type.Partial(
  Type.Omit(CreateProductBody, ['type', 'storePageId', 'variants']),
);

export const ListProductsQuery = Type.Object({
  cursor: Type.Optional(Type.String()),
  modifiedAfter: Type.Optional(Type.String()),
  modifiedBefore: Type.Optional(Type.String()),
  query: Type.Optional(Type.String({ maxLength: 200 })),
  type: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
});

export const ProductIdParams = Type.Object({ productId: Type.String() });
export const ProductIdsParams = Type.Object({
  productIdCsvs: Type.String({ description: 'one product id or a comma-separated list of at most 50' }),
});

export type CreateProductInput = Static<typeof CreateProductBody>;
export type SeoOptionsT = Static<typeof SeoOptionsInput>;
export type CreateVariant = Static<typeof CreateVariantInput>;
export type PricingInputT = Static<typeof PricingInput>;
export type MeasurementsInputT = Static<typeof MeasurementsInput>;
export type UpdateProductInput = Static<typeof UpdateProductBody>;
export type ListProductsQueryT = Static<typeof ListProductsQuery>;

/* Responses */

export const ProductPricing = Type.Object({ basePrice: Money, salePrice: Money, onSale: Type.Boolean() });

export const ProductMeasurements = Type.Object({
  weight: Type.Object({ unit: Type.String(), value: Type.Number() }),
  dimensions: Type.Object({
    unit: Type.String(),
    length: Type.Number(),
    width: Type.Number(),
    height: Type.Number(),
  }),
});

export const ProductImage = Type.Object({
  id: Type.String(),
  altText: Type.String(),
  orderIndex: Type.Integer(),
  url: Type.String(),
  originalSize: Type.Object({ width: Type.Integer(), height: Type.Integer() }),
  availableFormats: Type.Array(Type.String()),
});

export const ProductVariant = Type.Object({
  id: Type.String(),
  sku: Type.String(),
  attributes: Type.Record(Type.String(), Type.String()),
  image: Type.Union([ProductImage, Type.Null()]),
  pricing: ProductPricing,
  stock: Type.Object({ quantity: Type.Integer(), unlimited: Type.Boolean() }),
  measurements: ProductMeasurements,
  shippingMeasurements: ProductMeasurements,
});

export const Product = Type.Object({
  id: Type.String(),
  type: ProductType,
  storePageId: Type.String(),
  name: Type.String(),
  description: Type.String(),
  url: Type.String(),
  urlSlug: Type.String(),
  tags: Type.Array(Type.String()),
  isVisible: Type.Boolean(),
  variantAttributes: Type.Array(Type.String()),
  variants: Type.Array(ProductVariant),
  images: Type.Array(ProductImage),
  pricing: Type.Union([ProductPricing, Type.Null()]),
  digitalGood: Type.Union([Type.Object({ id: Type.String(), filename: Type.String() }), Type.Null()]),
  seoOptions: Type.Union([
    Type.Object({
      title: Type.Union([Type.String(), Type.Null()]),
      description: Type.Union([Type.String(), Type.Null()]),
    }),
    Type.Null(),
  ]),
  createdOn: Type.String({ format: 'date-time' }),
  modifiedOn: Type.String({ format: 'date-time' }),
});

export const ProductList = Type.Object({ products: Type.Array(Product), pagination: Pagination });
export const ProductsById = Type.Object({ products: Type.Array(Product) });

export type ProductT = Static<typeof Product>;
export type ProductVariantT = Static<typeof ProductVariant>;
export type ProductImageT = Static<typeof ProductImage>;
