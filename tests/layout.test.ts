// The layout of tests/: a test of src/<layer>/<path> lives under tests/<layer>/<path>, so every test folder of a
// layer names a folder or a file of src (a short list of theme folders excepted, each with its reason), and every
// file under tests/ that is not a test (a helper, a child-process script) lives in tests/helpers or tests/fixtures.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');

/** Layers whose test folders mirror src/<layer>. */
const MIRRORED = ['app', 'cli', 'data', 'engine', 'rl', 'util'];

/** Test folders that follow a theme of the paper or its code rather than one part of src. */
const THEME_FOLDERS: Record<string, string> = {
  'tests/rl/algorithm1':
    "the paper's Algorithm 1 (single-turn ReMA): phases, KL reward and stopping across src/rl/train and losses",
  'tests/rl/code-defaults':
    "the released ReMA code's defaults, each checked where it lands (protocol, losses, prompts, engine)",
  'tests/rl/judge': "the paper's judge task end to end: tiny-task data, prompts, rewards and the trainer",
};

const TEST_FILE = /\.(test|spec)\.tsx?$/;
const CODE_FILE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;

/** Code files under tests/ that are not tests and lie outside tests/helpers and tests/fixtures. */
function strayHelpers(files: readonly string[]): string[] {
  return files.filter(
    (f) =>
      CODE_FILE.test(f) &&
      !TEST_FILE.test(f) &&
      !f.startsWith('tests/helpers/') &&
      !f.startsWith('tests/fixtures/') &&
      f.startsWith('tests/'),
  );
}

/**
 * Folders tests/<layer>/<path> (layer in MIRRORED) for which src/<layer>/<path> is neither a folder nor a
 * source file (<path>.ts / .tsx), and that are not theme folders nor inside one.
 */
function unmirroredFolders(
  folders: readonly string[],
  srcHas: (path: string) => boolean,
  themes: Record<string, string> = THEME_FOLDERS,
): string[] {
  return folders.filter((dir) => {
    const [top, layer, ...rest] = dir.split('/');
    if (top !== 'tests' || !MIRRORED.includes(layer ?? '') || rest.length === 0) return false;
    if (Object.keys(themes).some((t) => dir === t || dir.startsWith(`${t}/`))) return false;
    const path = ['src', layer, ...rest].join('/');
    return !srcHas(path) && !srcHas(`${path}.ts`) && !srcHas(`${path}.tsx`);
  });
}

function walk(dir: string): { files: string[]; folders: string[] } {
  const files: string[] = [];
  const folders: string[] = [];
  for (const name of readdirSync(join(root, dir)).toSorted()) {
    const rel = `${dir}/${name}`;
    if (statSync(join(root, rel)).isDirectory()) {
      folders.push(rel);
      const inner = walk(rel);
      files.push(...inner.files);
      folders.push(...inner.folders);
    } else files.push(rel);
  }
  return { files, folders };
}

describe('tests layout', () => {
  const tree = walk('tests');

  it('every non-test code file under tests/ is in tests/helpers or tests/fixtures', () => {
    expect(strayHelpers(tree.files)).toEqual([]);
  });

  it('every test folder of a layer mirrors a folder or file of src', () => {
    expect(unmirroredFolders(tree.folders, (p) => existsSync(join(root, p)))).toEqual([]);
  });

  it('every theme folder exists and has its reason', () => {
    for (const [dir, reason] of Object.entries(THEME_FOLDERS)) {
      expect(tree.folders).toContain(dir);
      expect(reason.length).toBeGreaterThan(20);
    }
  });

  it('the checks name each kind of misplaced file and folder', () => {
    expect(
      strayHelpers([
        'tests/rl/tiny-tokenizer.ts',
        'tests/app/render-app.tsx',
        'tests/engine/check.mjs',
        'tests/rl/verifier/hacks.test.ts',
        'tests/e2e/startup.spec.ts',
        'tests/helpers/rl/tiny-tokenizer.ts',
        'tests/fixtures/golden/make.ts',
        'tests/fixtures/verl/rema.example_7b.overrides',
      ]),
    ).toEqual(['tests/rl/tiny-tokenizer.ts', 'tests/app/render-app.tsx', 'tests/engine/check.mjs']);
    const src = new Set(['src/rl/verifier', 'src/rl/trainer.ts', 'src/app/App.tsx', 'src/engine/io']);
    expect(
      unmirroredFolders(
        [
          'tests/rl/verifier',
          'tests/rl/trainer',
          'tests/app/App',
          'tests/engine/io',
          'tests/engine/io/hf',
          'tests/rl/trainers',
          'tests/rl/paper',
          'tests/rl/paper/deep',
          'tests/bench/anything',
          'tests/rl',
        ],
        (p) => src.has(p),
        { 'tests/rl/paper': 'a theme' },
      ),
    ).toEqual(['tests/engine/io/hf', 'tests/rl/trainers']);
  });
});
