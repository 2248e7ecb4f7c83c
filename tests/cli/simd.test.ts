// The CLI runs the fastest WebAssembly build and says so: bin/rema.mjs enables relaxed SIMD on Node 20 (it needs
// --experimental-wasm-relaxed-simd there), the backend line names the build, and --simd plain pins plain SIMD
// (the build older recorded runs used).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fastFlags, writeRandomModel } from '../helpers/cli/random-model.ts';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/rema.mjs');
const model = writeRandomModel();
const file = join(mkdtempSync(join(tmpdir(), 'rema-simd-')), 'one.jsonl');
writeFileSync(file, '{"question":"What is 2+3?","answer":"5"}\n');
/** stderr of `rema eval` on one problem with the wasm backend (not quiet: it prints the backend line) */
const evalLog = (...extra: string[]) => {
  const r = spawnSync(
    'node',
    [bin, 'eval', '--preset', 'tiny-default', ...fastFlags(model), '--file', file, '--backend', 'wasm', ...extra],
    { cwd: root, encoding: 'utf8' },
  );
  return { status: r.status, log: r.stderr, out: r.stdout };
};

describe('rema --simd', () => {
  it('auto (the default) runs the relaxed-SIMD build in the rema process, and says so', () => {
    const r = evalLog();
    expect(r.status, r.log).toBe(0);
    expect(r.log).toMatch(/^backend: wasm \(WebAssembly relaxed SIMD kernels, (1 thread|2 threads)\)$/m);
    expect(r.out).toMatch(/^one\s+n=\s+1\s+pass@1/m);
  });

  it('--simd plain pins the plain-SIMD build; --simd relaxed asks for relaxed explicitly', () => {
    const plain = evalLog('--simd', 'plain');
    expect(plain.status, plain.log).toBe(0);
    expect(plain.log).toMatch(/^backend: wasm \(WebAssembly SIMD kernels, (1 thread|2 threads)\)$/m);
    const relaxed = evalLog('--simd', 'relaxed');
    expect(relaxed.status, relaxed.log).toBe(0);
    expect(relaxed.log).toMatch(/^backend: wasm \(WebAssembly relaxed SIMD kernels, (1 thread|2 threads)\)$/m);
  });

  it('refuses an unknown build by name', () => {
    const r = evalLog('--simd', 'avx512');
    expect(r.status).toBe(1);
    expect(r.log).toMatch(/--simd <build>' argument 'avx512' is invalid\. Allowed choices are auto, relaxed, plain/);
  });
});
