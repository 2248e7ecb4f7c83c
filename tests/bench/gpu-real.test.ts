// bench:gpu (bench/gpu-real.ts) end to end on whatever adapter Dawn finds (SwiftShader here) with tiny shapes
// (--smoke --only 0.5b --timestamps, ~30 s): a real child process that prints the GPU self-test first, its JSON
// written with every part the real run fills in (the self-test's report, decode tok/s per G with bytes and GB/s, the
// matmul tile timings, the GRPO step by stage, ledger peaks, dispatches per program, GPU ms per kernel class). The
// figures themselves are not checked: on SwiftShader they are the emulation's.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

describe('bench:gpu --smoke', () => {
  it('runs every part and writes the result file', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'gpu-real-')), 'gpu-real.json');
    const env = {
      ...process.env,
      LD_LIBRARY_PATH: [process.env.LD_LIBRARY_PATH, '/usr/lib/chromium'].filter(Boolean).join(':'),
    };
    const r = spawnSync(
      'npx',
      ['tsx', 'bench/gpu-real.ts', '--smoke', '--only', '0.5b', '--peak-gbs', '100', '--timestamps', '--out', out],
      { cwd: root, encoding: 'utf8', env, timeout: 120_000 },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^pass +forward\/f32 +worst/m);
    expect(r.stdout).toMatch(/^ok: \d+\/\d+ checks passed/m);
    const res = JSON.parse(readFileSync(out, 'utf8'));
    expect(res.self_test.ok).toBe(true);
    expect(res.self_test.checks.map((c: { name: string }) => c.name)).toContain('gradients/f32');
    expect(res.self_test.speed.matmul.gflops).toBeGreaterThan(0);
    expect(res.smoke).toBe(true);
    expect(res.models.map((m: { name: string }) => m.name)).toEqual(['Qwen2.5-0.5B']);
    const m = res.models[0];
    expect(m.merged).toBe(true);
    expect(m.decode.map((d: { G: number }) => d.G)).toEqual([1, 4]);
    for (const d of m.decode) {
      expect(d.tok_s).toBeGreaterThan(0);
      expect(d.bytes_per_step).toBeGreaterThan(0);
      expect(d.fraction_of_peak).toBeGreaterThan(0);
    }
    expect([0, 2, 4]).toContain(m.autotune.best);
    expect(m.matmul_tiles[0].results.map((x: { tiled: number }) => x.tiled)).toEqual([0, 2, 4]);
    expect(m.new_kernels.map((k: { kernel: string }) => k.kernel.split(' ')[0])).toEqual([
      'attention',
      'rmsnorm',
      'tiled',
    ]);
    for (const k of m.new_kernels) expect(k.new_ms).toBeGreaterThan(0);
    expect(Object.keys(m.grpo.stages_ms)).toEqual([
      'generate',
      'score_reference',
      'score_old_policy',
      'gradient',
      'adamw',
    ]);
    expect(m.grpo.rollouts).toBe(4);
    expect(m.peak_bytes).toBeGreaterThan(0);
    expect(m.kernel_ms.decode_g4.rmsnorm.dispatches).toBeGreaterThan(0);
    expect(Object.keys(m.kernel_ms.gradient).length).toBeGreaterThan(3);
    expect(
      m.kernels.decode_g1['qkvRope:wg64'] ?? Object.keys(m.kernels.decode_g1).find((k) => k.startsWith('qkvRope')),
    ).toBeTruthy();
  }, 120_000);
});
