import type { Criteria } from '../shared/discount-model.ts';

type BuyXGetY = Extract<Criteria, { type: 'BUY_X_GET_Y' }>;

interface Line {
  productId: string | null;
  unitPriceMinor: number;
  quantity: number;
}

/**
 * How many units of each line a BUY_X_GET_Y discount rewards. Each application needs X units of
 * the criteria products bought at full price and rewards Y units of the reward products, no unit
 * counted twice. A product may be in both lists (buy 2, get 1 of the same product).
 *
 * With C units only in the criteria, R only in the rewards and B in both, n applications fit
 * exactly when nX ≤ C + B, nY ≤ R + B and n(X + Y) ≤ C + R + B (the both-units cover what the
 * others lack). The rewarded units are the nY cheapest reward units, of which at most
 * B − max(0, nX − C) may be both-units, so that enough criteria units are left at full price;
 * choosing the cheapest under that cap greedily is optimal (a partition matroid).
 * `maxApplications` 0 means no limit (platform-surface 2.7.2).
 */
export function buyXGetYUnits(criteria: BuyXGetY, maxApplications: number, lines: Line[]): number[] {
  const X = criteria.requiredFullPriceQuantity;
  const Y = criteria.eligibleForDiscountQuantity;
  const inCriteria = new Set(criteria.criteriaProductIds);
  const inReward = new Set(criteria.rewardProductIds);
  const kinds = lines.map((line) => {
    const c = line.productId !== null && inCriteria.has(line.productId);
    const r = line.productId !== null && inReward.has(line.productId);
    return c && r ? 'B' : c ? 'C' : r ? 'R' : 'N';
  });
  const count = (kind: string) =>
    lines.reduce((sum, line, i) => sum + (kinds[i] === kind ? line.quantity : 0), 0);
  const C = count('C');
  const R = count('R');
  const B = count('B');
  let n = Math.min(Math.floor((C + B) / X), Math.floor((R + B) / Y), Math.floor((C + R + B) / (X + Y)));
  if (maxApplications > 0) n = Math.min(n, maxApplications);
  const rewarded = lines.map(() => 0);
  if (n <= 0) return rewarded;

  let need = n * Y;
  let bothLeft = B - Math.max(0, n * X - C);
  const order = lines
    .map((line, i) => ({ i, price: line.unitPriceMinor, both: kinds[i] === 'B' }))
    .filter(({ i }) => kinds[i] === 'R' || kinds[i] === 'B')
    // Cheapest first; on equal prices reward-only units first, so both-units stay for the criteria.
    .sort((a, b) => a.price - b.price || Number(a.both) - Number(b.both) || a.i - b.i);
  for (const { i, both } of order) {
    if (need === 0) break;
    const take = Math.min(lines[i]!.quantity, need, both ? bothLeft : Infinity);
    rewarded[i] = take;
    need -= take;
    if (both) bothLeft -= take;
  }
  return rewarded;
}
