// The WGSL attentionBackward with past > 0 (a pass's own rows behind a context's cache rows: the per-thread dq, dk,
// dv kernels; the tiled ones cover past = 0 only, so a backend with them on takes the same path) against its CPU twin,
// whose oracle is tests/engine/attention-backward-past.test.ts. Tolerance 1e-4 of max |value| (exp / log chain), as
// for the other attention kernels.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import type { WebGpuBackend } from '../../../src/engine/backends/webgpu.ts';
import { attentionPastCases, pastInputs } from '../../helpers/attention-past.ts';
import { compareKernel } from '../../helpers/kernel-compare.ts';
import { getTestDevice, testBackend } from '../../helpers/webgpu.ts';

const TOL = 1e-4;

describe('WGSL attentionBackward behind a context (past > 0) vs the CPU twin', () => {
  const backends: WebGpuBackend[] = [];
  beforeAll(async () => {
    const dev = await getTestDevice();
    backends.push(testBackend(dev, { tiledAttention: false }), testBackend(dev, { tiledAttention: true }));
  });
  afterAll(() => backends.forEach((b) => b.destroy()));

  it(
    'GQA and MHA, left padding, a cache row no query sees; tiled kernels on and off',
    { timeout: 300_000 },
    async () => {
      const cpu = new CpuBackend();
      for (const gpu of backends)
        for (const [B, T, past, H, Hkv, Dh, keyStart] of attentionPastCases) {
          const x = pastInputs(cpu, B, T, past, H, Hkv, Dh, keyStart);
          const r = await compareKernel(cpu, gpu, 'attentionBackward', x.tensors, x.p, ['dq', 'dk', 'dv']);
          for (const name of ['dq', 'dk', 'dv']) expect(r.err[name], `${name} ${[B, T, past]}`).toBeLessThan(TOL);
        }
    },
  );
});
