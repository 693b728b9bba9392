import { ValidationError } from '../shared/errors.ts';
import { parseUtcTime } from '../shared/iso-time.ts';
import type { AddressJson, ShipmentJson } from '../shared/order-model.ts';
import { LIMITS, type AddressInputT, type ShipmentInputT } from './orders.schemas.ts';

/** The pieces of an order request that the import and the fulfillment share, checked. */

/** An Address as sent: every field present, empty ones null. */
export function parseAddress(input: AddressInputT | null | undefined): AddressJson | null {
  if (!input) return null;
  const field = (value: string | null | undefined) => (value ? value : null);
  return {
    firstName: field(input.firstName),
    lastName: field(input.lastName),
    address1: field(input.address1),
    address2: field(input.address2),
    city: field(input.city),
    state: field(input.state),
    countryCode: field(input.countryCode),
    postalCode: field(input.postalCode),
    phone: field(input.phone),
  };
}

function parseUrl(value: string, field: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new ValidationError(`${field}: must be a valid http or https URL`);
  }
  return value;
}

export function parseShipment(input: ShipmentInputT, field: string): ShipmentJson {
  parseUtcTime(input.shipDate, `${field}.shipDate`);
  for (const name of ['carrierName', 'service', 'trackingNumber'] as const) {
    if (!input[name].trim())
      throw new ValidationError(`${field}.${name}: must not be empty`, 'MISSING_ARGUMENT');
    // The API's schema bounds these too; the owner's fulfill form reaches this without it.
    if (input[name].length > LIMITS.shipmentText)
      throw new ValidationError(`${field}.${name}: at most ${LIMITS.shipmentText} characters`);
  }
  if (input.trackingUrl && input.trackingUrl.length > LIMITS.trackingUrl)
    throw new ValidationError(`${field}.trackingUrl: at most ${LIMITS.trackingUrl} characters`);
  return {
    shipDate: input.shipDate,
    carrierName: input.carrierName,
    service: input.service,
    trackingNumber: input.trackingNumber,
    trackingUrl: input.trackingUrl ? parseUrl(input.trackingUrl, `${field}.trackingUrl`) : null,
  };
}
