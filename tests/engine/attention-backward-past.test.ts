// attentionBackward with past > 0: queries behind a context whose keys sit at cache rows [0, past) (the rows of a
// group trained with their shared prompt run once, model/prefix-train.ts). The oracle is the past = 0 backward that
// the golden fixtures check against float64 torch, run on the whole sequence [context; own rows] with the context's
// queries contributing nothing (q, o, dout and lse zero there: p = 1, dout = 0, delta = 0, so every term they add is
// 0): its dq rows past.. and its dk, dv must equal the past > 0 kernel's. Then the WASM kernel (one and two threads)
// against its CPU twin on the same inputs. WebGPU: tests/engine/kernels/webgpu-attention-past.test.ts.
import { describe, expect, it } from 'vitest';
import { CpuBackend } from '../../src/engine/backends/cpu.ts';
import { WasmBackend } from '../../src/engine/backends/wasm.ts';
import { spawnNodeWasmHelper } from '../../src/cli/wasm-helper-node.ts';
import { attentionPastCases, concatenatedOracle, pastInputs, runPast } from '../helpers/attention-past.ts';
import { compareKernel } from '../helpers/kernel-compare.ts';

describe('attentionBackward behind a context (past > 0)', () => {
  it.each(attentionPastCases)(
    'B %i T %i past %i H %i Hkv %i Dh %i keyStart %j: equals the past = 0 backward of [context; rows] (CPU)',
    (B, T, past, H, Hkv, Dh, keyStart) => {
      const cpu = new CpuBackend();
      const inputs = pastInputs(cpu, B, T, past, H, Hkv, Dh, keyStart);
      const got = runPast(cpu, inputs);
      const want = concatenatedOracle(cpu, inputs);
      for (const name of ['dq', 'dk', 'dv'] as const) {
        expect(got[name].length, name).toBe(want[name].length);
        let scale = 0;
        for (const x of want[name]) scale = Math.max(scale, Math.abs(x));
        expect(scale, `${name} is not all zero`).toBeGreaterThan(0);
        for (let i = 0; i < want[name].length; i++)
          expect(Math.abs(got[name][i] - want[name][i]), `${name}[${i}]`).toBeLessThanOrEqual(1e-6 * scale);
      }
      // key rows no query sees: before keyStart, and past + T .. S
      const W = Hkv * Dh;
      const S = inputs.S;
      for (let b = 0; b < B; b++)
        for (let j = 0; j < S; j++)
          if (j < keyStart[b] || j >= past + T) for (let c = 0; c < W; c++) expect(got.dk[(b * S + j) * W + c]).toBe(0);
    },
  );

  it.each([1, 2])('WASM (%i threads) vs the CPU twin', async (threads) => {
    const wasm = await WasmBackend.create({ spawnHelper: spawnNodeWasmHelper, cores: 2, threads: threads as 1 | 2 });
    try {
      const cpu = new CpuBackend();
      for (const [B, T, past, H, Hkv, Dh, keyStart] of attentionPastCases) {
        const inputs = pastInputs(cpu, B, T, past, H, Hkv, Dh, keyStart);
        const r = await compareKernel(cpu, wasm, 'attentionBackward', inputs.tensors, inputs.p, ['dq', 'dk', 'dv']);
        for (const name of ['dq', 'dk', 'dv']) expect(r.err[name], `${name} ${[B, T, past]}`).toBeLessThan(1e-5);
      }
    } finally {
      wasm.destroy();
    }
  });
});
