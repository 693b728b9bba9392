import type { ColumnType, Generated } from 'kysely';
import type { Criteria, Template } from '../shared/discount-model.ts';

/** The table of discounts (migration 019; see schema.ts). */
type Timestamp = Date;

export interface DiscountsTable {
  id: string;
  website_id: string;
  name: string;
  criteria_type: Criteria['type'];
  template_type: Template['type'];
  trigger_type: 'AUTO' | 'CODE';
  /** As entered; unique in the website whatever its case. Null for AUTO. */
  promo_code: string | null;
  /** jsonb: written as JSON text. */
  criteria: ColumnType<Criteria, string, string>;
  template: ColumnType<Template, string, string>;
  valid_from: Timestamp;
  valid_to: Timestamp | null;
  is_limited_uses: boolean;
  max_uses_allowed: number | null;
  is_once_per_customer: boolean;
  number_of_uses: Generated<number>;
  last_redeemed_at: Timestamp | null;
  subscription_options: string;
  payment_plan_options: string;
  created_on: Timestamp;
  modified_on: Timestamp;
}

/** One use of a discount by an order (migration 020). */
export interface DiscountRedemptionsTable {
  discount_id: string;
  website_id: string;
  /** Lower-cased. */
  buyer_email: string;
  order_id: string;
  redeemed_on: Timestamp;
}
