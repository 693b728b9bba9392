import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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
