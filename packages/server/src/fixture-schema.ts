import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SITE_FIXTURE_SCHEMA } from './testing/fixtures/fixture.schemas.ts';

/** The published JSON Schema of site fixtures (docs/fixtures.md), written by `npm run fixture-schema`. */
export const FIXTURE_SCHEMA_PATH = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../site-fixture.schema.json',
);

/** The schema as the committed file holds it: draft 2020-12, two-space indents, a final newline. */
export function fixtureSchemaDocument(): string {
  const document = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    ...SITE_FIXTURE_SCHEMA,
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(FIXTURE_SCHEMA_PATH, fixtureSchemaDocument());
  process.stdout.write(`wrote ${FIXTURE_SCHEMA_PATH}\n`);
}
