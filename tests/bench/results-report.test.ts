// bench/RESULTS.md is generated from bench/results/*.json by bench/report.ts: this regenerates it into a temporary
// file and fails when the committed page differs (a benchmark rerun without the report, or a hand edit).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

it('bench/RESULTS.md is what bench/report.ts writes from bench/results', () => {
  const out = join(mkdtempSync(join(tmpdir(), 'rema-bench-report-')), 'RESULTS.md');
  execFileSync(process.execPath, ['--import', 'tsx', 'bench/report.ts', '--out', out], { cwd: root });
  expect(readFileSync(join(root, 'bench/RESULTS.md'), 'utf8')).toBe(readFileSync(out, 'utf8'));
});
