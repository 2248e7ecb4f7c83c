// `rema train --backend webgpu` end to end through bin/rema.mjs: one GRPO step of the shipped tiny-rema model on
// Dawn (on the Vulkan driver VK_ICD_FILENAMES names) writes the same rollouts and rewards as the same command on the WASM backend
// (the two backends agree on the logits to ~1e-6, so seeded sampling picks the same tokens), and a checkpoint.
// Kept small (2 problems x group 2, 24 tokens per turn): software drivers run about 1 GFLOP/s.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requestDawnDevice } from '../../src/cli/webgpu-device.ts';
import { WebGpuBackend } from '../../src/engine/backends/webgpu.ts';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/rema.mjs');
const small = [
  '--steps',
  '1',
  '--set',
  'problemsPerStep=2',
  '--set',
  'groupSize=2',
  '--set',
  'evalSize=2',
  '--set',
  'maxTokensPerTurn=24',
];

function lines(path: string): Record<string, unknown>[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function train(backend: string, out: string): string {
  // f32 weights on both: the default ('auto') stores the base as f16 on a GPU with shader-f16, and with it the KV
  // cache, whose rounded weights and keys move the logits by ~1e-3 (tests/engine/golden-f16.test.ts,
  // tests/engine/model/kv-cache-f16.test.ts), enough for seeded sampling to pick other tokens; with f32 weights the
  // cache is f32 too
  const run = spawnSync(
    'node',
    [bin, 'train', '--preset', 'tiny-default', ...small, '--backend', backend, '--weight-dtype', 'f32', '--out', out],
    { cwd: root, encoding: 'utf8' },
  );
  expect(run.stderr).not.toMatch(/error/i);
  expect(run.status).toBe(0);
  // progress and the backend line go to stderr, the summary to stdout
  return run.stderr + run.stdout;
}

type Turn = { role: string; text: string };
const turnTexts = (rows: Record<string, unknown>[]) =>
  rows.map((r) => (r.turns as Turn[]).map((t) => `${t.role}: ${t.text}`));

const device = await requestDawnDevice();
/** how the CLI names the adapter it runs on */
const gpuLine = `backend: ${WebGpuBackend.create(device.device, { gpuInfo: device.gpuInfo }).description}`;
device.device.destroy();

describe('rema train --backend webgpu', () => {
  it('trains a step on Dawn with the same rollouts and rewards as the WASM backend', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'rema-webgpu-'));
    const output = train('webgpu', join(tmp, 'webgpu'));
    // the CLI names the adapter it runs on
    expect(output).toContain(gpuLine);
    train('wasm', join(tmp, 'wasm'));
    const [gpu, cpu] = [lines(join(tmp, 'webgpu/rollouts.jsonl')), lines(join(tmp, 'wasm/rollouts.jsonl'))];
    expect(gpu.length).toBe(4);
    expect(turnTexts(gpu)).toEqual(turnTexts(cpu));
    expect(gpu.map((r) => r.reward)).toEqual(cpu.map((r) => r.reward));
    expect(turnTexts(lines(join(tmp, 'webgpu/eval_rollouts.jsonl')))).toEqual(
      turnTexts(lines(join(tmp, 'wasm/eval_rollouts.jsonl'))),
    );
    const [mg, mc] = [lines(join(tmp, 'webgpu/metrics.jsonl'))[0], lines(join(tmp, 'wasm/metrics.jsonl'))[0]];
    expect(mg.step).toBe(1);
    for (const key of [
      'entropy',
      'loss',
      'grad_norm',
      'len_meta_mean',
      'len_reason_mean',
      'reward_mean',
      'eval_accuracy',
    ]) {
      expect(typeof mc[key]).toBe('number');
      expect(Math.abs((mg[key] as number) - (mc[key] as number))).toBeLessThan(
        1e-3 * Math.max(1, Math.abs(mc[key] as number)),
      );
    }
    expect(readFileSync(join(tmp, 'webgpu/checkpoints/latest'), 'utf8')).toBe('step-000001');
    expect(existsSync(join(tmp, 'webgpu/checkpoints/step-000001'))).toBe(true);
  });
});
