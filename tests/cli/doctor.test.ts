// `rema doctor --backend webgpu` through bin/rema.mjs on the adapter Dawn finds (a software one on a machine without
// a GPU): the --json object's documented shape (docs/backends.md, "GPU self-test") with every check passing on the
// shipped fixtures, the printed lines, and a fixture whose golden logits were moved by 1e-3 of their largest value,
// which the forward check must catch (exit status 2) while the checks that never compare logits still pass.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/rema.mjs');

function doctor(...args: string[]) {
  return spawnSync('node', [bin, 'doctor', '--backend', 'webgpu', ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 170_000,
  });
}

/** Adds `relative` · max |value| to element `index` of the F64 tensor `name` in a safetensors file, in place. */
function nudgeF64(path: string, name: string, index: number, relative: number): void {
  const bytes = readFileSync(path);
  const headerLength = Number(bytes.readBigUInt64LE(0));
  const entry = JSON.parse(bytes.subarray(8, 8 + headerLength).toString('utf8'))[name];
  expect(entry.dtype).toBe('F64');
  const start = 8 + headerLength + entry.data_offsets[0];
  let max = 0;
  for (let at = start; at < 8 + headerLength + entry.data_offsets[1]; at += 8)
    max = Math.max(max, Math.abs(bytes.readDoubleLE(at)));
  const at = start + 8 * index;
  bytes.writeDoubleLE(bytes.readDoubleLE(at) + relative * max, at);
  writeFileSync(path, bytes);
}

const CHECKS = ['forward/f32', 'logprobs/f32', 'decode/f32', 'lora-gradients/f32', 'gradients/f32'];

describe('rema doctor --backend webgpu', () => {
  it('--json prints one object: adapter, limits, features, subgroup sizes, passing checks, speed, ok', () => {
    const r = doctor('--json');
    expect(r.stderr).not.toMatch(/error|fail/i);
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(Object.keys(report)).toEqual(
      expect.arrayContaining(['adapter', 'limits', 'features', 'subgroup_sizes', 'checks', 'speed', 'ok']),
    );
    for (const key of ['vendor', 'architecture', 'device', 'description'])
      expect(typeof report.adapter[key]).toBe('string');
    expect(report.adapter.vendor).not.toBe('');
    expect(report.limits.maxStorageBufferBindingSize).toBeGreaterThanOrEqual(128 * 1024 * 1024);
    expect(report.limits.maxStorageBuffersPerShaderStage).toBeGreaterThanOrEqual(8);
    expect(Array.isArray(report.features)).toBe(true);
    if (report.features.includes('subgroups')) {
      expect(report.subgroup_sizes.min).toBeGreaterThan(0);
      expect(report.subgroup_sizes.max).toBeGreaterThanOrEqual(report.subgroup_sizes.min);
    }
    expect(report.fixtures).toEqual(['llama-gqa4-headdim', 'qwen2-tied-gqa2']);
    // the f16 checks run where the engine stores the base as halves (an adapter with shader-f16)
    const names = report.checks.map((c: { name: string }) => c.name);
    expect(names.slice(0, CHECKS.length)).toEqual(CHECKS);
    expect(names.length).toBe(report.engine.storages.includes('f16') ? 9 : 5);
    for (const c of report.checks) {
      expect(c.ok, `${c.name}: ${c.worst_error} vs ${c.tolerance}`).toBe(true);
      expect(c.worst_error).toBeGreaterThan(0); // f32 arithmetic never matches float64 exactly
      expect(c.worst_error).toBeLessThanOrEqual(c.tolerance);
    }
    expect(report.speed.matmul).toMatchObject({ M: 128, N: 1024, K: 512 });
    expect(report.speed.matmul.gflops).toBeGreaterThan(0);
    expect(report.speed.decode.tok_s).toBeGreaterThan(0);
    expect(report.ok).toBe(true);
  }, 180_000);

  it('fails the forward check, exit status 2, when a golden logit is off by 1e-3 of the largest', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rema-doctor-'));
    cpSync(join(root, 'public/gpu-check'), dir, { recursive: true });
    // 1e-3 of max |logit| is 25 times the f32 tolerance and far above what the kernels miss by (~5e-7)
    nudgeF64(join(dir, 'qwen2-tied-gqa2', 'golden.safetensors'), 'logits', 100, 1e-3);
    const r = doctor('--json', '--no-speed', '--fixtures', dir);
    expect(r.status).toBe(2);
    const report = JSON.parse(r.stdout);
    expect(report.ok).toBe(false);
    expect(report.speed).toBeNull();
    const byName = Object.fromEntries(report.checks.map((c: { name: string }) => [c.name, c]));
    expect(byName['forward/f32'].ok).toBe(false);
    expect(byName['forward/f32'].worst_error).toBeGreaterThan(byName['forward/f32'].tolerance);
    for (const name of ['logprobs/f32', 'decode/f32', 'lora-gradients/f32', 'gradients/f32'])
      expect(byName[name].ok).toBe(true);
  }, 180_000);

  it('prints a line per check and the verdict without --json', () => {
    const r = doctor('--no-speed', '--quiet');
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    for (const name of CHECKS) expect(r.stdout).toMatch(new RegExp(`^pass +${name} +worst \\S+ \\(tolerance`, 'm'));
    expect(r.stdout).toMatch(/^adapter: \S/m);
    expect(r.stdout).toMatch(/^ok: 5\/5 checks passed|^ok: 9\/9 checks passed/m);
  }, 180_000);
});
