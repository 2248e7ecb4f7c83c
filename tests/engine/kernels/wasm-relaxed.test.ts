// The relaxed-SIMD build (fused multiply-add) of the WASM kernels. Node 20 accepts relaxed SIMD only behind
// --experimental-wasm-relaxed-simd, so the check runs in a child Node process with that flag
// (kernels-wasm-relaxed-check.ts); browsers (Chromium 114+) validate the module without flags.
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WasmBackend } from '../../../src/engine/backends/wasm.ts';

describe('relaxed-SIMD WebAssembly kernels', () => {
  it('this Node picks plain SIMD without the flag (the run-time fallback)', async () => {
    const support = WasmBackend.support();
    const auto = await WasmBackend.create();
    expect(auto.variant).toBe(support['relaxed-simd'] ? 'relaxed-simd' : 'simd');
    if (!support['relaxed-simd']) {
      await expect(WasmBackend.create({ variant: 'relaxed-simd' })).rejects.toThrow(
        /relaxed-simd kernels are not supported/,
      );
    }
  });

  it('with --experimental-wasm-relaxed-simd: matmul, attention, logprob, rmsnorm, swiglu match the float64 references', () => {
    const script = resolve(import.meta.dirname, '../../helpers/engine/kernels-wasm-relaxed-check.ts');
    const out = execFileSync(process.execPath, ['--experimental-wasm-relaxed-simd', '--import', 'tsx', script], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    const result = JSON.parse(out.trim().split('\n').pop() ?? '{}') as {
      variant: string;
      wasmMatmuls: number;
      errors: Record<string, number>;
    };
    expect(result.variant).toBe('relaxed-simd');
    expect(result.wasmMatmuls).toBeGreaterThan(12);
    expect(Object.keys(result.errors).length).toBe(16);
    for (const [name, err] of Object.entries(result.errors)) expect(err, name).toBeLessThan(5e-6);
  });
});
