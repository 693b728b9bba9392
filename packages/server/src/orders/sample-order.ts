import { randomInt } from 'node:crypto';
import type { Db } from '../db/database.ts';
import { NotFound } from '../shared/errors.ts';
import { findWebsite } from '../sites/websites.repo.ts';
import type { AddressJson } from '../shared/order-model.ts';
import { selectStockedVariants, type StockedVariant } from './orders.repo.ts';
import type { DraftLine, OrderDraft } from './place-order.ts';
import { majorUnit } from '../shared/money.ts';
import { paidWebOrder } from './web-order.ts';

/**
 * A storefront order as a buyer would have placed it, for trying apps locally (`emporium admin
 * create-order`) and for the demo site: the website's own products, a paid card payment, stock
 * taken. `random` is injectable so a test can pin what is chosen.
 */

/** The variants a sample order picks among: enough for variety, few enough for one short query. */
const CANDIDATES = 100;
const MAX_LINES = 3;
const MAX_QUANTITY = 2;
const GIFT_WRAP_MAJOR = 5;
const CHARGE_ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

interface Buyer {
  email: string;
  address: AddressJson;
}

const buyer = (
  firstName: string,
  lastName: string,
  address1: string,
  city: string,
  state: string,
  postalCode: string,
  phone: string,
): Buyer => ({
  email: `${firstName}.${lastName}@example.com`.toLowerCase(),
  address: {
    firstName,
    lastName,
    address1,
    address2: null,
    city,
    state,
    countryCode: 'US',
    postalCode,
    phone,
  },
});

/** Made-up people at reserved example addresses and 555 numbers, so none is a real buyer. */
const BUYERS: Buyer[] = [
  buyer('Ada', 'Lovelace', '12 Analytical Way', 'Portland', 'OR', '97205', '+1 503-555-0142'),
  buyer('Grace', 'Hopper', '400 Cobol Street', 'Arlington', 'VA', '22201', '+1 703-555-0187'),
  buyer('Alan', 'Turing', '7 Enigma Lane', 'Austin', 'TX', '78701', '+1 512-555-0119'),
  buyer('Katherine', 'Johnson', '1961 Orbit Avenue', 'Hampton', 'VA', '23666', '+1 757-555-0163'),
  buyer('Linus', 'Pauling', '85 Helix Road', 'Pasadena', 'CA', '91101', '+1 626-555-0175'),
];

/** A number in [0, 1) from node:crypto, as all randomness of the service is (security SC-2). */
const uniform = () => randomInt(2 ** 47) / 2 ** 47;

const pick = <T>(items: readonly T[], random: () => number): T =>
  items[Math.min(items.length - 1, Math.floor(random() * items.length))]!;

/** 1 to MAX_QUANTITY, never more than the variant has in stock. */
function quantityOf(variant: StockedVariant, random: () => number): number {
  const most = variant.stock_unlimited ? MAX_QUANTITY : Math.min(MAX_QUANTITY, variant.stock_quantity);
  return 1 + Math.min(most - 1, Math.floor(random() * most));
}

function productLines(variants: StockedVariant[], random: () => number): DraftLine[] {
  const left = [...variants];
  const count = Math.min(left.length, 1 + Math.floor(random() * MAX_LINES));
  const lines: DraftLine[] = [];
  // One line a variant, so each line's quantity alone is what its stock must cover.
  for (let i = 0; i < count; i++) {
    const [variant] = left.splice(Math.floor(random() * left.length), 1);
    lines.push({
      lineItemType: 'PHYSICAL_PRODUCT',
      variantId: variant!.id,
      title: null,
      quantity: quantityOf(variant!, random),
      unitPricePaidMinor: variant!.on_sale ? variant!.sale_price_minor : variant!.base_price_minor,
      customizations: null,
    });
  }
  return lines;
}

export async function sampleOrderDraft(
  deps: { db: Db },
  websiteId: string,
  now: Date,
  random: () => number = uniform,
): Promise<OrderDraft> {
  const website = await findWebsite(deps.db, websiteId);
  if (!website) throw new NotFound(`website not found: ${websiteId}`);
  const { currency } = website;
  const unit = majorUnit(currency);
  const variants = await selectStockedVariants(deps.db, websiteId, CANDIDATES);
  const lines: DraftLine[] = variants.length
    ? productLines(variants, random)
    : [
        {
          lineItemType: 'CUSTOM',
          variantId: null,
          title: 'Gift wrap',
          quantity: 1,
          unitPricePaidMinor: GIFT_WRAP_MAJOR * unit,
          customizations: null,
        },
      ];
  const { email, address } = pick(BUYERS, random);
  const chargeId = Array.from({ length: 24 }, () => pick([...CHARGE_ID_CHARS], random)).join('');
  return paidWebOrder({
    currency,
    placedOn: now,
    customerEmail: email,
    address,
    lines,
    cardBrand: 'VISA',
    chargeId,
  });
}
