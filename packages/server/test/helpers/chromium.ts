import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { freePort } from '../../src/shared/net.ts';
import { axeViolations } from './axe.ts';
import { testApp, type TestAppOptions, type TestContext } from './test-app.ts';

/** Debian's Chromium, which the browser tests drive through playwright-core. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where the browser tests leave their screenshots (git-ignored). */
export const SCREENSHOTS = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../test-output/screenshots',
);

/** The browser tests' skip reason, or false when Chromium is there. */
export const skipWithoutChromium = fs.existsSync(CHROMIUM)
  ? false
  : `no Chromium at ${CHROMIUM} (.ci/run installs Debian's package)`;

/** What the browser tests need of node:test's test context. */
export type Diagnostics = { diagnostic(message: string): void };

/**
 * A browser test file's app, listening on a free port of 127.0.0.1 that is also its owner pages'
 * origin, and Debian's Chromium to drive it; close() stops both.
 */
export async function browserApp(
  options: Omit<TestAppOptions, 'authUrl'> = {},
): Promise<{ ctx: TestContext; origin: string; browser: Browser; close: () => Promise<void> }> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const ctx = await testApp({ logLevel: 'silent', ...options, authUrl: origin });
  await ctx.app.listen({ port, host: '127.0.0.1' });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox'],
    timeout: 30_000,
  });
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    ctx,
    origin,
    browser,
    close: async () => {
      await browser.close();
      await ctx.close();
    },
  };
}

/** The whole page as a PNG under test-output/screenshots, named in the test's output. */
export async function screenshot(page: Page, name: string, t: Diagnostics): Promise<void> {
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  t.diagnostic(`screenshot: ${file}`);
}

/** No serious or critical axe-core violation on the page (each one failing is listed). */
export async function accessible(page: Page, t: Diagnostics, label: string): Promise<void> {
  const failing = await axeViolations(page, t, label);
  assert.deepEqual(failing, [], `${label}: ${JSON.stringify(failing)}`);
}

/** The page fits a 390 px wide phone without scrolling sideways; screenshot `name`, then back to 1280 px. */
export async function fitsPhone(page: Page, t: Diagnostics, label: string, name: string): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  const widths = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  assert.ok(widths[0]! <= widths[1]!, `${label}: ${widths[0]} px wide in a 390 px window`);
  await screenshot(page, name, t);
  await page.setViewportSize({ width: 1280, height: 800 });
}
