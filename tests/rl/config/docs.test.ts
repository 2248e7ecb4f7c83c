// docs/config.md is generated from the config's field table; this fails when the file no longer matches the
// table (a field added or changed without regenerating) and prints the command that regenerates it.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_DOCS_PATH, configDocs, REGENERATE_COMMAND } from '../../../scripts/docs/config-docs.ts';

const root = resolve(import.meta.dirname, '../../..');

describe('docs/config.md', () => {
  it('matches the field table', () => {
    const written = readFileSync(join(root, CONFIG_DOCS_PATH), 'utf8');
    expect(written === configDocs(), `${CONFIG_DOCS_PATH} is stale: run \`${REGENERATE_COMMAND}\``).toBe(true);
  });
});
