// rema train --weight-dtype: the frozen base reaches the engine as f16 / bf16 halves on the wasm backend (a step
// trains and writes its files), and a backend that cannot hold halves refuses by name. A BF16 checkpoint is read
// into 2 bytes per parameter on the host whatever the base's storage (the weights line says how many bytes).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSafetensors, writeSafetensors, type WritableTensor } from '../../src/engine/io/safetensors.ts';
import { fastFlags, writeRandomModel } from '../helpers/cli/random-model.ts';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/rema.mjs');
const model = writeRandomModel();
const rema = (...args: string[]) => spawnSync('node', [bin, ...args], { cwd: root, encoding: 'utf8' });

describe('rema train --weight-dtype', () => {
  it.each(['f16', 'bf16'])('%s base weights on the wasm backend: a step trains', (dtype) => {
    const out = join(mkdtempSync(join(tmpdir(), `rema-${dtype}-`)), 'run');
    const r = rema(
      'train',
      '--preset',
      'tiny-default',
      ...fastFlags(model),
      '--steps',
      '1',
      '--set',
      'evalEvery=0',
      '--set',
      'evalBeforeTrain=false',
      '--backend',
      'wasm',
      '--threads',
      '1',
      '--weight-dtype',
      dtype,
      '--out',
      out,
      '--quiet',
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const metrics = readFileSync(join(out, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { step: number; nonfinite?: boolean });
    expect(metrics.map((m) => m.step)).toEqual([1]);
    expect(metrics[0].nonfinite ?? false).toBe(false);
  });

  it('the cpu backend keeps f32 weights and says so', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'rema-f16-cpu-')), 'run');
    const r = rema(
      'train',
      '--preset',
      'tiny-default',
      ...fastFlags(model),
      '--steps',
      '1',
      '--backend',
      'cpu',
      '--weight-dtype',
      'f16',
      '--out',
      out,
      '--quiet',
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/does not support f16 weights/);
  });
});

describe('rema eval reads a BF16 checkpoint as 16-bit words', () => {
  const bf16Model = mkdtempSync(join(tmpdir(), 'rema-bf16-model-'));
  for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json'])
    copyFileSync(join(model, f), join(bf16Model, f));
  const f32 = parseSafetensors(
    new Uint8Array(readFileSync(join(model, 'model.safetensors'))),
    'model.safetensors',
  ).tensors;
  let parameters = 0;
  const tensors = new Map<string, WritableTensor>();
  for (const [name, t] of f32) {
    tensors.set(name, { dtype: 'BF16', shape: t.shape, data: t.data as Float32Array });
    parameters += (t.data as Float32Array).length;
  }
  writeFileSync(join(bf16Model, 'model.safetensors'), writeSafetensors(tensors));
  const file = join(mkdtempSync(join(tmpdir(), 'rema-bf16-eval-')), 'one.jsonl');
  writeFileSync(file, '{"question":"What is 2+3?","answer":"5"}\n');
  const weightsLine = (dir: string, dtype: string) => {
    const r = spawnSync(
      'node',
      [bin, 'eval', '--preset', 'tiny-default', ...fastFlags(dir), '--file', file, '--backend', 'wasm'].concat(
        '--threads',
        '1',
        '--weight-dtype',
        dtype,
      ),
      { cwd: root, encoding: 'utf8' },
    );
    expect(r.status, r.stderr).toBe(0);
    return r.stderr.split('\n').find((l) => l.startsWith('weights: '));
  };
  const n = parameters.toLocaleString('en-US');

  it.each(['bf16', 'f32'])('base %s: 2 bytes per parameter on the host', (dtype) => {
    expect(weightsLine(bf16Model, dtype)).toBe(
      `weights: BF16 checkpoint, ${n} parameters read into ${(2 * parameters).toLocaleString('en-US')} bytes on the host; base ${dtype}`,
    );
  });

  it('an F32 checkpoint: 4 bytes per parameter', () => {
    expect(weightsLine(model, 'auto')).toBe(
      `weights: F32 checkpoint, ${n} parameters read into ${(4 * parameters).toLocaleString('en-US')} bytes on the host; base f32`,
    );
  });
});
