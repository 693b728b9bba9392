import { Type, type Static } from 'typebox';
import { Changeable } from '../http/common.schemas.ts';
import { Attributes, CreateVariantInput, MeasurementsInput, PricingInput } from './products.schemas.ts';

export const CreateVariantBody = CreateVariantInput;

/** Partial update: each field plain or a change-wrapper. Stock moves only through inventory. */
export const UpdateVariantBody = Type.Object({
  sku: Type.Optional(Changeable(CreateVariantInput.properties.sku)),
  pricing: Type.Optional(Changeable(PricingInput)),
  attributes: Type.Optional(Changeable(Attributes)),
  measurements: Type.Optional(Changeable(MeasurementsInput)),
  shippingMeasurements: Type.Optional(Changeable(MeasurementsInput)),
});

export const VariantParams = Type.Object({ productId: Type.String(), variantId: Type.String() });

export type UpdateVariantInput = Static<typeof UpdateVariantBody>;
