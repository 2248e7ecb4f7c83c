// Test helper: the golden fixture folders (tests/fixtures/golden/) every suite built on them iterates, with a floor
// on how many there are, so a renamed file or a lost folder fails the suite instead of shrinking it silently.
import { readdirSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const GOLDEN_ROOT = resolve(import.meta.dirname, '../fixtures/golden');

/** `git ls-files tests/fixtures/golden` lists 4 folders (20 files) when this floor was set: raise it with new ones. */
export const GOLDEN_FIXTURES_MIN = 4;

/** The sorted names of the golden folders holding `file`; throws when fewer than GOLDEN_FIXTURES_MIN do. */
export function goldenFixtures(file: string): string[] {
  const names = existsSync(GOLDEN_ROOT)
    ? readdirSync(GOLDEN_ROOT)
        .filter((d) => existsSync(join(GOLDEN_ROOT, d, file)))
        .toSorted()
    : [];
  if (names.length < GOLDEN_FIXTURES_MIN) {
    throw new Error(
      `tests/fixtures/golden: ${names.length} folder(s) hold ${file} (${names.join(', ') || 'none'}), expected at least ` +
        `${GOLDEN_FIXTURES_MIN}; regenerate them with scripts/golden/make_golden.py`,
    );
  }
  return names;
}
