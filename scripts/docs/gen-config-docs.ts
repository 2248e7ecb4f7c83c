// Writes docs/config.md from the config's field table: `npx tsx scripts/docs/gen-config-docs.ts`. Run it after
// adding or changing a field (tests/rl/config/docs.test.ts fails until docs/config.md matches the table).
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CONFIG_DOCS_PATH, configDocs } from './config-docs.ts';

const root = resolve(import.meta.dirname, '../..');
writeFileSync(join(root, CONFIG_DOCS_PATH), configDocs());
process.stdout.write(`wrote ${CONFIG_DOCS_PATH}\n`);
