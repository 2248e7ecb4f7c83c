// The GPU self-test's core (engine/gpu-check) in-process on Dawn: the shipped fixtures are byte-identical copies of
// the golden fixtures they name; with f16 storage forced every class also runs on halves and errs like halves do
// (more than f32, within the f16 bounds); a tolerance of 0 fails every check, so none passes without comparing; a
// check that throws is reported as failed with its error while the rest still run; and the adapter's limits come
// out as the full table.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { directoryFileSource } from '../../../src/cli/fs-source.ts';
import { memoryFileSource } from '../../../src/engine/io/memory-source.ts';
import { SHIPPED_GPU_CHECK_FIXTURES } from '../../../src/engine/gpu-check/golden-fixture.ts';
import { limitsRecord, runGpuCheck } from '../../../src/engine/gpu-check/report.ts';
import { GPU_CHECK_TOLERANCES } from '../../../src/engine/gpu-check/tolerances.ts';
import { GOLDEN_ROOT } from '../../helpers/golden-fixtures.ts';
import { getTestDevice } from '../../helpers/webgpu.ts';

const shipped = resolve(import.meta.dirname, '../../../public/gpu-check');
const sources = () => SHIPPED_GPU_CHECK_FIXTURES.map((n) => directoryFileSource(join(shipped, n), n));

describe('the GPU self-test', () => {
  it('ships copies of golden fixtures, byte for byte, and only the files the check reads', () => {
    expect(readdirSync(shipped).toSorted()).toEqual([...SHIPPED_GPU_CHECK_FIXTURES]);
    for (const name of SHIPPED_GPU_CHECK_FIXTURES) {
      const files = readdirSync(join(shipped, name)).toSorted();
      expect(files).toEqual(['config.json', 'golden.safetensors', 'model.safetensors']);
      for (const f of files)
        expect(
          Buffer.compare(readFileSync(join(shipped, name, f)), readFileSync(join(GOLDEN_ROOT, name, f))),
          `${name}/${f}`,
        ).toBe(0);
    }
  });

  it('with f16 storage runs every class on halves too, within the f16 bounds and above the f32 errors', async () => {
    const dawn = await getTestDevice();
    const report = await runGpuCheck({
      adapter: dawn.adapter,
      device: dawn.device,
      fixtures: sources(),
      backendOptions: { f16Storage: 'always' },
      speed: false,
    });
    expect(report.engine.storages).toEqual(['f32', 'f16']);
    const byName = new Map(report.checks.map((c) => [c.name, c]));
    expect([...byName.keys()]).toEqual([
      'forward/f32',
      'logprobs/f32',
      'decode/f32',
      'lora-gradients/f32',
      'gradients/f32',
      'forward/f16',
      'logprobs/f16',
      'decode/f16',
      'lora-gradients/f16',
    ]);
    for (const c of report.checks) {
      expect(c.ok, `${c.name}: ${c.worst_error} (${c.error ?? ''})`).toBe(true);
      const storage = c.name.endsWith('/f16') ? 'f16' : 'f32';
      expect(c.tolerance).toBe(GPU_CHECK_TOLERANCES[storage][c.name.includes('gradients') ? 'gradients' : 'outputs']);
    }
    // rounding every weight to a half moves the outputs by ~1e-3 of their range, f32 arithmetic by ~1e-6
    for (const kind of ['forward', 'logprobs', 'decode', 'lora-gradients']) {
      expect(byName.get(`${kind}/f16`)!.worst_error!).toBeGreaterThan(1e-5);
      expect(byName.get(`${kind}/f16`)!.worst_error!).toBeGreaterThan(10 * byName.get(`${kind}/f32`)!.worst_error!);
    }
    expect(report.ok).toBe(true);
    console.info(report.checks.map((c) => `${c.name} ${c.worst_error}`).join(', '));
  });

  it('fails every check at a tolerance of 0, with the error it measured', async () => {
    const dawn = await getTestDevice();
    const zero = { outputs: 0, gradients: 0 };
    const report = await runGpuCheck({
      adapter: dawn.adapter,
      device: dawn.device,
      fixtures: sources().slice(0, 1),
      tolerances: { f32: zero, f16: zero },
      speed: false,
    });
    expect(report.checks.length).toBeGreaterThanOrEqual(5);
    for (const c of report.checks) {
      expect(c.ok).toBe(false);
      expect(c.worst_error).toBeGreaterThan(0);
    }
    expect(report.ok).toBe(false);
  });

  it('reports a check that throws with its error and runs the others on a fresh backend', async () => {
    const dawn = await getTestDevice();
    const name = SHIPPED_GPU_CHECK_FIXTURES[0];
    const files: Record<string, Uint8Array> = {};
    for (const f of ['config.json', 'model.safetensors', 'golden.safetensors'])
      files[f] = new Uint8Array(readFileSync(join(shipped, name, f)));
    // rename the final norm's golden gradient (same length, so the header stays valid): only the full-gradient
    // check reads it
    const golden = Buffer.from(files['golden.safetensors']);
    const at = golden.indexOf('"grad.model.norm.weight"');
    expect(at).toBeGreaterThan(0);
    golden.write('"grad.model.norm.weighX"', at);
    files['golden.safetensors'] = golden;
    const report = await runGpuCheck({
      adapter: dawn.adapter,
      device: dawn.device,
      fixtures: [memoryFileSource(name, files)],
      speed: false,
    });
    const failed = report.checks.filter((c) => !c.ok);
    expect(failed.map((c) => c.name)).toEqual(['gradients/f32']);
    expect(failed[0].worst_error).toBeNull();
    expect(failed[0].error).toContain('missing "grad.model.norm.weight"');
    expect(report.ok).toBe(false);
  });

  it("reports every limit the adapter has, by the spec's names", async () => {
    const dawn = await getTestDevice();
    const limits = limitsRecord(dawn.adapter.limits);
    expect(Object.keys(limits).length).toBeGreaterThan(20);
    expect(limits.maxStorageBufferBindingSize).toBe(dawn.adapter.limits.maxStorageBufferBindingSize);
    expect(limits.maxComputeWorkgroupsPerDimension).toBe(dawn.adapter.limits.maxComputeWorkgroupsPerDimension);
  });
});
