// `rema sft` end to end on the embedded model: metrics with a loss per step, a model folder that `rema eval` (and
// so `rema train`) loads as a plain model, a kill + resume that writes what an uninterrupted run writes, the
// folder refusing another run's settings, and a bad chat line named before any model is loaded.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSft, sftFromFlags } from '../../src/cli/sft.ts';

const root = resolve(import.meta.dirname, '../..');
const rema = (...args: string[]) =>
  spawnSync('node', [join(root, 'bin/rema.mjs'), ...args], { cwd: root, encoding: 'utf8' });
const tmp = () => mkdtempSync(join(tmpdir(), 'rema-sft-'));
const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const withoutTime = (rows: Record<string, unknown>[]) => rows.map(({ time_s: _t, ...rest }) => rest);

describe('rema sft', () => {
  it('trains, logs a loss per step and writes a model folder that rema eval loads', () => {
    const out = tmp();
    const r = rema(
      'sft',
      '--preset',
      'tiny-sft-cot',
      '--set',
      'finetune="full"',
      '--set',
      'sft.tinyProblems=8',
      '--set',
      'sft.batchSize=4',
      '--set',
      'sft.epochs=2',
      '--out',
      out,
      '--quiet',
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const m = lines(join(out, 'metrics.jsonl'));
    expect(m.map((x) => x.step)).toEqual([1, 2, 3, 4]);
    expect(m.map((x) => x.epoch)).toEqual([1, 1, 2, 2]);
    expect(m.every((x) => typeof x.loss === 'number' && (x.loss as number) > 0)).toBe(true);
    // the second epoch sees the same chats after one pass over them: they are more likely now
    expect((m[2].loss as number) + (m[3].loss as number)).toBeLessThan((m[0].loss as number) + (m[1].loss as number));
    expect(r.stdout).toContain(`model ${join(out, 'model')}`);
    const ev = rema(
      'eval',
      '--preset',
      'tiny-default',
      '--set',
      'modelSource="local"',
      '--set',
      `model="${join(out, 'model')}"`,
      '--limit',
      '4',
      '--quiet',
    );
    expect(ev.stderr).toBe('');
    expect(ev.stdout).toMatch(/tiny-arith +n= +4 +pass@1/);
  });

  it('resumes after a kill and ends with the files of an uninterrupted run', async () => {
    const run = sftFromFlags({
      preset: 'tiny-sft-meta',
      set: ['sft.tinyProblems=6', 'sft.batchSize=4', 'sft.epochs=2'],
    });
    const whole = tmp();
    const cut = tmp();
    const a = await runSft({ ...run, out: whole, backend: 'wasm', saveEvery: 1, progress: 'none' });
    expect(a.totalSteps).toBe(6);
    const first = await runSft({ ...run, out: cut, backend: 'wasm', saveEvery: 2, progress: 'none', maxNewSteps: 3 });
    expect(first.model).toBeUndefined();
    // the kill came after step 3 was logged but before its checkpoint (saved every 2): resume from step 2
    const second = await runSft({ ...run, out: cut, backend: 'wasm', saveEvery: 2, progress: 'none' });
    expect(second.resumedFrom).toBe(2);
    expect(withoutTime(lines(join(cut, 'metrics.jsonl')))).toEqual(withoutTime(lines(join(whole, 'metrics.jsonl'))));
    expect(readFileSync(join(cut, 'model/model.safetensors'))).toEqual(
      readFileSync(join(whole, 'model/model.safetensors')),
    );
    const other = sftFromFlags({ preset: 'tiny-sft-meta', set: ['sft.tinyProblems=6', 'sft.batchSize=2'] });
    await expect(runSft({ ...other, out: cut, backend: 'wasm', progress: 'none' })).rejects.toThrow(
      /sft\.json: this folder holds an SFT run with different SFT settings/,
    );
  });

  it('resumes a folder whose config.json predates a config field, reading it at its default as rema train does', async () => {
    const run = sftFromFlags({ preset: 'tiny-sft-cot', set: ['sft.tinyProblems=4', 'sft.batchSize=2'] });
    const out = tmp();
    await runSft({ ...run, out, backend: 'wasm', saveEvery: 1, progress: 'none', maxNewSteps: 1 });
    const saved = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')) as Record<string, unknown>;
    delete saved.maxNonFiniteSteps; // written before the field existed (its default is the preset's value)
    writeFileSync(join(out, 'config.json'), JSON.stringify(saved));
    const resumed = await runSft({ ...run, out, backend: 'wasm', saveEvery: 1, progress: 'none' });
    expect(resumed).toMatchObject({ resumedFrom: 1, steps: 2 });
  });

  it('names a bad chat line and an unknown setting before loading anything', () => {
    const dir = tmp();
    const file = join(dir, 'chats.jsonl');
    writeFileSync(
      file,
      '{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"a"}]}\n{"instruction":"q"}\n',
    );
    const r = rema('sft', '--data', file, '--out', join(dir, 'run'), '--quiet');
    expect(r.status).not.toBe(0);
    expect(r.stderr.trim()).toBe(`rema: ${file}:2: "output" is missing`);
    const s = rema('sft', '--set', 'sft.epoch=2', '--out', join(dir, 'run2'));
    expect(s.stderr).toMatch(/--set sft\.epoch: unknown SFT setting "epoch"; settings: sft\.data, sft\.files/);
  });
});
