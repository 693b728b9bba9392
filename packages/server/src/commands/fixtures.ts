import fs from 'node:fs/promises';
import path from 'node:path';
import { ValidationError } from '../shared/errors.ts';
import { exportFixture } from '../testing/fixtures/export-fixture.ts';
import { loadFixture } from '../testing/fixtures/load-fixture.ts';
import type { CommandGroup } from './command.ts';

/** The fixture file as JSON; a file that cannot be read or parsed is named with the reason. */
async function readFixture(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    throw new ValidationError(`file: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ValidationError(`file: ${file} is not JSON: ${(error as Error).message}`);
  }
}

/** `emporium fixtures ...`: whole sites from and to files (docs/fixtures.md). */
export const FIXTURES: CommandGroup = {
  load: {
    synopsis: '--file site.json --owner E',
    options: { file: { type: 'string' }, owner: { type: 'string' } },
    required: ['file', 'owner'],
    // Prints the new site's ids, API keys and app secrets: shown this once, stored only as digests.
    run: async (deps, v) => {
      const fixture = await readFixture(v.file!);
      // The queues made as the service makes them, so that pictures are queued for processing
      // on a database no server has run on yet; the server's workers process them.
      await deps.jobs.start();
      try {
        return await loadFixture(deps, fixture, {
          ownerEmail: v.owner!,
          baseDir: path.dirname(path.resolve(v.file!)),
        });
      } finally {
        await deps.jobs.stop();
      }
    },
  },
  export: {
    synopsis: '--website ID [--file site.json]',
    options: { website: { type: 'string' }, file: { type: 'string' } },
    required: ['website'],
    run: async (deps, v) => {
      const fixture = await exportFixture(deps, v.website!);
      if (v.file === undefined) return fixture;
      await fs.writeFile(v.file, `${JSON.stringify(fixture, null, 2)}\n`);
      return { websiteId: v.website!, file: path.resolve(v.file) };
    },
  },
};
