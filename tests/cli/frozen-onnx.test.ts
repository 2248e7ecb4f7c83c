// Frozen ONNX agents from the command line, on the shipped tiny-rema and its ONNX export (onnxruntime-node):
// `rema eval --onnx` gives the same answers and accuracy as `rema eval` of the safetensors model on the engine (also
// for the VRP baseline), and `rema train --frozen-agent reasoning --frozen-model` trains the meta agent, writes
// metrics, records the frozen model, and refuses to resume with another one.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/rema.mjs');
const rema = (...args: string[]) => spawnSync('node', [bin, ...args], { cwd: root, encoding: 'utf8' });
const onnxModel = 'public/models/tiny-rema';

interface Transcript {
  turns: { role: string; text: string }[];
  correct: boolean;
  extracted?: string;
}
const transcripts = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Transcript)
    .map((t) => ({ turns: t.turns.map((x) => `${x.role}: ${x.text}`), correct: t.correct, extracted: t.extracted }));

describe('rema with frozen ONNX agents', () => {
  for (const preset of ['tiny-default', 'vrp']) {
    it(`eval --onnx (${preset}): the same answers and pass@1 as the safetensors model on the engine`, () => {
      const tmp = mkdtempSync(join(tmpdir(), 'rema-onnx-eval-'));
      const common = ['--preset', preset, '--benchmarks', 'tiny-arith', '--limit', '6', '--backend', 'cpu'];
      const onnx = rema('eval', ...common, '--onnx', onnxModel, '--out', join(tmp, 'onnx'));
      const engine = rema('eval', ...common, '--out', join(tmp, 'engine'), '--quiet');
      expect(onnx.status, onnx.stderr).toBe(0);
      expect(engine.status, engine.stderr).toBe(0);
      expect(onnx.stderr).toMatch(
        /policy \(every role\): public\/models\/tiny-rema\/onnx\/model\.onnx .* on onnxruntime-node [\d.]+, cpu execution provider/,
      );
      expect(onnx.stdout).toMatch(/^tiny-arith\s+n=\s+6\s+pass@1 /m);
      expect(onnx.stdout).toBe(engine.stdout);
      const [a, b] = [
        transcripts(join(tmp, 'onnx/tiny-arith_rollouts.jsonl')),
        transcripts(join(tmp, 'engine/tiny-arith_rollouts.jsonl')),
      ];
      expect(a.length).toBe(6);
      expect(a).toEqual(b);
      expect(a.some((t) => t.turns.some((x) => x.length > 20))).toBe(true); // the models wrote something
    }, 60_000);
  }

  it('train --frozen-agent reasoning --frozen-model: meta trains, metrics written, the frozen model is recorded', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'rema-frozen-train-')), 'run');
    const flags = [
      '--preset',
      'tiny-default',
      '--steps',
      '2',
      '--set',
      'problemsPerStep=2',
      '--set',
      'groupSize=2',
      '--set',
      'evalSize=2',
      '--set',
      'evalBeforeTrain=false',
      '--backend',
      'cpu',
    ];
    const r = rema('train', ...flags, '--frozen-agent', 'reasoning', '--frozen-model', onnxModel, '--out', out);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /frozen reasoning agent: public\/models\/tiny-rema\/onnx\/model\.onnx .* on onnxruntime-node [\d.]+, cpu execution provider/,
    );
    const metrics = readFileSync(join(out, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { step: number; rows_trained: number; len_reason_mean: number });
    expect(metrics.map((m) => m.step)).toEqual([1, 2]);
    for (const m of metrics) {
      expect(m.rows_trained).toBeGreaterThan(0);
      expect(m.rows_trained).toBeLessThanOrEqual(4); // one meta row per episode at most: no reasoning rows
      expect(m.len_reason_mean).toBeGreaterThan(0);
    }
    const rollouts = readFileSync(join(out, 'rollouts.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { turns: { role: string; pieces?: string[] }[] });
    const trainedRoles = new Set(rollouts.flatMap((x) => x.turns.filter((t) => t.pieces).map((t) => t.role)));
    expect([...trainedRoles]).toEqual(['meta']);
    expect(JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')).frozenAgent).toBe('reasoning');
    expect(JSON.parse(readFileSync(join(out, 'frozen-agent.json'), 'utf8'))).toMatchObject({
      role: 'reasoning',
      model: onnxModel,
      modelFile: 'onnx/model.onnx',
    });
    expect(existsSync(join(out, 'checkpoints/step-000002/adapters/shared'))).toBe(true);

    // resuming needs the same frozen model; a frozen model needs a frozen role
    const other = rema(
      'train',
      ...flags,
      '--steps',
      '3',
      '--frozen-agent',
      'reasoning',
      '--frozen-model',
      'tests/fixtures/golden/qwen2-tied-gqa2',
      '--out',
      out,
    );
    expect(other.status).toBe(1);
    expect(other.stderr).toMatch(
      /frozen-agent\.json: this run's frozen agent is "public\/models\/tiny-rema", not "tests\/fixtures\/golden\/qwen2-tied-gqa2"/,
    );
    const orphan = rema('train', ...flags, '--frozen-model', onnxModel, '--out', join(out, '..', 'other'));
    expect(orphan.status).toBe(1);
    expect(orphan.stderr).toMatch(/--frozen-model needs --frozen-agent meta\|reasoning/);
    const vrp = rema('eval', '--preset', 'vrp', '--frozen-agent', 'meta', '--frozen-model', onnxModel, '--quiet');
    expect(vrp.status).toBe(1);
    expect(vrp.stderr).toMatch(/field "frozenAgent" \("meta"\) needs a two-agent mode/);
  }, 90_000);
});
