import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);
/** axe-core's browser bundle, read once. */
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  /** CSS selectors of the elements that break the rule. */
  targets: string[];
}

/** Impacts that fail a test; moderate and minor ones are printed only. */
const FAILING = new Set(['serious', 'critical']);

/**
 * Runs axe-core on the page as it is and prints every violation (id, impact, elements) into the
 * test's output; returns the serious and critical ones. axe is evaluated through the DevTools
 * protocol, which a page's Content-Security-Policy does not govern, so pages keep their own
 * strict policy (no script) while they are checked.
 */
export async function axeViolations(
  page: Page,
  t: { diagnostic(message: string): void },
  label: string,
): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: RawViolation[] }> } }).axe;
    interface RawViolation {
      id: string;
      impact: string | null;
      help: string;
      nodes: { target: string[] }[];
    }
    const result = await axe.run();
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(' ')),
    }));
  });
  t.diagnostic(`axe-core on ${label}: ${violations.length} violation(s)`);
  for (const v of violations) {
    t.diagnostic(`  ${v.impact ?? 'unknown'} ${v.id}: ${v.help} (${v.targets.slice(0, 5).join(', ')})`);
  }
  return violations.filter((v) => FAILING.has(v.impact ?? ''));
}
