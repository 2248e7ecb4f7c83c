// `rema verify` core (src/cli/verify.ts): JSONL in, one verdict line out per input line, in order;
// bad lines are reported with their line number before anything is written; `rema verify` as a child process
// gives every line a verdict within the hard limit per check, expensive answers included.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseVerifyInput, runVerify } from '../../../src/cli/verify.ts';

const root = new URL('../../..', import.meta.url).pathname;
const bin = join(root, 'bin/rema.mjs');
const matrix = (name: string) =>
  `\\begin{pmatrix}${Array.from({ length: 5 }, (_r, i) => Array.from({ length: 5 }, (_c, j) => `${name}_{${i}${j}}`).join('&')).join('\\\\')}\\end{pmatrix}`;

const dir = mkdtempSync(join(tmpdir(), 'rema-verify-'));

function writeJsonl(name: string, lines: string[]): string {
  const p = join(dir, name);
  writeFileSync(p, lines.join('\n') + '\n');
  return p;
}

describe('runVerify', () => {
  it('writes one record per line, in order, with verdict and extracted answer', async () => {
    const input = writeJsonl('in.jsonl', [
      JSON.stringify({ gold: '\\frac{1}{2}', pred: 'So the answer is \\boxed{0.5}.' }),
      JSON.stringify({ gold: '3', pred: 'I think it is \\boxed{4}' }),
      '',
      JSON.stringify({ gold: 12, pred: 'Total: $\\boxed{12 \\text{ apples}}$' }),
      JSON.stringify({ gold: '7', pred: 'no idea' }),
    ]);
    const output = join(dir, 'out.jsonl');
    const summary = await runVerify(input, output);
    expect(summary).toEqual({ total: 4, correct: 2 });
    const records = readFileSync(output, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(records.map((r) => r.verdict)).toEqual([true, false, true, false]);
    expect(records.map((r) => r.extracted)).toEqual(['0.5', '4', '12', null]);
    expect(records[3].reason).toBe('no-answer');
  });

  it('names the line of a bad record and writes nothing', async () => {
    const input = writeJsonl('bad.jsonl', [
      JSON.stringify({ gold: '1', pred: '\\boxed{1}' }),
      JSON.stringify({ gold: '2' }),
    ]);
    const output = join(dir, 'bad-out.jsonl');
    await expect(runVerify(input, output)).rejects.toThrow(/bad\.jsonl:2: field "pred"/);
    expect(existsSync(output)).toBe(false);
  });

  it('reports invalid JSON and missing files clearly', async () => {
    expect(() => parseVerifyInput('{"gold": "1", "pred": "x"}\n{oops', 'f.jsonl')).toThrow(
      /f\.jsonl:2: not valid JSON/,
    );
    expect(() => parseVerifyInput('[1, 2]', 'f.jsonl')).toThrow(/f\.jsonl:1: expected an object/);
    expect(() => parseVerifyInput('{"gold": null, "pred": "x"}', 'f.jsonl')).toThrow(/f\.jsonl:1: field "gold"/);
    await expect(runVerify(join(dir, 'missing.jsonl'))).rejects.toThrow(/missing\.jsonl: cannot read/);
  });
});

describe('rema verify (child process)', () => {
  it('gives every line a verdict within the hard limit, expensive answers answering timeout', () => {
    const slow = `\\boxed{${matrix('x')}${matrix('y')}${matrix('z')}}`;
    const input = writeJsonl('expensive.jsonl', [
      JSON.stringify({ gold: '5', pred: '\\boxed{5}' }),
      JSON.stringify({ gold: '5', pred: slow }),
      JSON.stringify({ gold: '5', pred: '\\boxed{\\sum_{k=1}^{10^{9}} k}' }),
      JSON.stringify({ gold: '1000000!', pred: '\\boxed{1000000!}' }),
      JSON.stringify({ gold: '5', pred: slow }),
      JSON.stringify({ gold: '6', pred: 'so \\boxed{6}' }),
    ]);
    const output = join(dir, 'expensive-out.jsonl');
    const t0 = performance.now();
    const r = spawnSync('node', [bin, 'verify', '--in', input, '--out', output, '--limit-ms', '100'], {
      cwd: root,
      encoding: 'utf8',
    });
    const seconds = (performance.now() - t0) / 1000;
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('2/6 correct');
    const records = readFileSync(output, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(records.map((x) => x.verdict)).toEqual([true, false, false, false, false, true]);
    expect(records[1].reason).toBe('timeout');
    expect(records[4].reason).toBe('timeout');
    // start-up and two worker restarts (about a second each on 2 cores); unbounded, these lines ran for minutes
    expect(seconds).toBeLessThan(25);
  }, 60_000);

  it('refuses a limit that is not a positive number of milliseconds', () => {
    const input = writeJsonl('one.jsonl', [JSON.stringify({ gold: '1', pred: '\\boxed{1}' })]);
    const r = spawnSync('node', [bin, 'verify', '--in', input, '--limit-ms', 'soon'], { cwd: root, encoding: 'utf8' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('--limit-ms must be an integer from 1 to 2147483647, got "soon"');
  });
});
