// The docs name real files: every `src/...` path written in README.md or docs/*.md exists in the repository, so a
// renamed or deleted file cannot leave the contributor's guide (docs/ARCHITECTURE.md) or the README pointing at
// nothing. Paths with placeholders (`<kind>`, `*`, `{a,b}`) are patterns, not files, and are skipped.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');

/** Every src/... path in a text (not inside a longer path or URL), trailing punctuation removed, patterns skipped. */
function srcPaths(text: string): string[] {
  const found = text.match(/(?<![\w./-])src\/[\w./<>*{},-]*/g) ?? [];
  return [...new Set(found.map((p) => p.replace(/[.,:]+$/, '')).filter((p) => !/[<>*{}]/.test(p)))];
}

const docs = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

describe('paths in the docs', () => {
  it('finds the paths a text names, and only those', () => {
    expect(srcPaths('see `src/rl/trainer.ts`, src/engine/ and (src/app/worker/session.ts). Also src/cli.')).toEqual([
      'src/rl/trainer.ts', 'src/engine/', 'src/app/worker/session.ts', 'src/cli',
    ]);
    expect(srcPaths('https://github.com/o/r/tree/main/src/x.ts, tests/src/y.ts, backends/src/z, src/engine/backends/<kind>/, src/{a,b}.ts')).toEqual([]);
  });

  it('README.md and docs/ARCHITECTURE.md are among the files read', () => {
    expect(docs).toContain('README.md');
    expect(docs).toContain('docs/ARCHITECTURE.md');
  });

  it.each(docs)('%s: every src/ path exists', (doc) => {
    const paths = srcPaths(readFileSync(join(root, doc), 'utf8'));
    expect(paths.filter((p) => !existsSync(join(root, p)))).toEqual([]);
  });

  it('docs/ARCHITECTURE.md names the file of every stage of a training step', () => {
    const rows = readFileSync(join(root, 'docs/ARCHITECTURE.md'), 'utf8').split('\n').filter((l) => l.startsWith('| '));
    for (const stage of ['rollout', 'reward', 'advantages', 'loss coefficients', 'engine backward', 'optimiser']) {
      const row = rows.find((l) => l.startsWith(`| ${stage} |`));
      expect(row, stage).toBeDefined();
      expect(srcPaths(row!).length, stage).toBeGreaterThan(0);
    }
  });
});
