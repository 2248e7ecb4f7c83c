// `rema train --backend webgpu` when the GPU goes away mid-run: the device is destroyed right after step 1
// (REMA_LOSE_DEVICE_AFTER_STEP, the stand-in for a driver reset), step 2 finds it lost, and the command exits with
// status 4 saying what happened and how to go on; step 1 stays written and checkpointed, and the same command on the
// CPU backend resumes from it and finishes the run. Kept small (2 problems x group 2, 16 tokens per turn).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/rema.mjs');

function train(out: string, backend: string, env: Record<string, string> = {}) {
  const args = ['train', '--preset', 'tiny-default', '--steps', '2', '--set', 'problemsPerStep=2'];
  args.push('--set', 'groupSize=2', '--set', 'evalSize=2', '--set', 'maxTokensPerTurn=16', '--set', 'evalEvery=0');
  args.push('--backend', backend, '--weight-dtype', 'f32', '--out', out);
  return spawnSync('node', [bin, ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, ...env } });
}

const steps = (out: string) =>
  readFileSync(join(out, 'metrics.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => (JSON.parse(l) as { step: number }).step);

describe('rema train when the WebGPU device is lost', () => {
  it('exits with status 4, says what happened, and the same command resumes from the last completed step', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'rema-lost-')), 'run');
    const lost = train(out, 'webgpu', { REMA_LOSE_DEVICE_AFTER_STEP: '1' });
    expect(lost.status, lost.stderr).toBe(4);
    expect(lost.stderr).toMatch(/the GPU device was lost during step 2 of 2 \(WebGPU device lost/);
    expect(lost.stderr).toMatch(/resume from step 1/);
    expect(steps(out)).toEqual([1]);
    expect(readFileSync(join(out, 'checkpoints/latest'), 'utf8').trim()).toBe('step-000001');

    const resumed = train(out, 'wasm');
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/2 steps \(resumed from step 1\)/);
    expect(steps(out)).toEqual([1, 2]);
  });
});
