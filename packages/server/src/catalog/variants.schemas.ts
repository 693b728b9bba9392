import { Type, type Static } from 'typebox';
import { Attributes, CreateVariantInput, MeasurementsInput, PricingInput } from './products.schemas.ts';

export const CreateVariantBody = CreateVariantInput;

/** Partial update (change-wrappers unwrapped by the route). Stock moves only through inventory. */
export const UpdateVariantBody = Type.Object({
  sku: Type.Optional(CreateVariantInput.properties.sku),
  pricing: Type.Optional(PricingInput),
  attributes: Type.Optional(Attributes),
  measurements: Type.Optional(MeasurementsInput),
  shippingMeasurements: Type.Optional(MeasurementsInput),
});

export const VariantParams = Type.Object({ productId: Type.String(), variantId: Type.String() });

export type UpdateVariantInput = Static<typeof UpdateVariantBody>;
