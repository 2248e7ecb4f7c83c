// rema --threads: the wasm backend splits large matmuls over a helper thread (worker_threads) by default on a
// machine with 2+ cores, --threads 1 / 2 pins it, the backend line says which, and the answers do not depend on it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fastFlags, writeRandomModel } from '../helpers/cli/random-model.ts';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/rema.mjs');
const model = writeRandomModel();
const file = join(mkdtempSync(join(tmpdir(), 'rema-threads-')), 'two.jsonl');
writeFileSync(file, '{"question":"What is 2+3?","answer":"5"}\n{"question":"What is 4+4?","answer":"8"}\n');
const evalRun = (...extra: string[]) => {
  const r = spawnSync(
    'node',
    [bin, 'eval', '--preset', 'tiny-default', ...fastFlags(model), '--file', file, '--backend', 'wasm', ...extra],
    { cwd: root, encoding: 'utf8' },
  );
  return { status: r.status, log: r.stderr, out: r.stdout };
};

describe('rema --threads', () => {
  it('--threads 1 and --threads 2 name their thread count and give the same answers; auto follows the cores', () => {
    const one = evalRun('--threads', '1');
    expect(one.status, one.log).toBe(0);
    expect(one.log).toMatch(/^backend: wasm \(WebAssembly relaxed SIMD kernels, 1 thread\)$/m);
    const two = evalRun('--threads', '2');
    expect(two.status, two.log).toBe(0);
    expect(two.log).toMatch(/^backend: wasm \(WebAssembly relaxed SIMD kernels, 2 threads\)$/m);
    expect(two.out).toBe(one.out);
    const auto = evalRun();
    expect(auto.status, auto.log).toBe(0);
    expect(auto.log).toContain(availableParallelism() >= 2 ? '2 threads' : '1 thread)');
  });

  it('refuses another count by name', () => {
    const r = evalRun('--threads', '4');
    expect(r.status).toBe(1);
    expect(r.log).toMatch(/--threads <n>' argument '4' is invalid\. Allowed choices are auto, 1, 2/);
  });
});
