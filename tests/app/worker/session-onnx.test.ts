// The worker's session run in-process with a frozen ONNX agent: the shipped tiny-rema and its ONNX export
// (public/models/tiny-rema/onnx/model.onnx) read from disk as a picked local folder, onnxruntime-node standing in
// for onnxruntime-web (same InferenceSession / Tensor API; the page's build is covered by
// tests/e2e/frozen-onnx.spec.ts). A training step with the reasoning agent frozen, the VRP baseline of the ONNX
// model, and the errors for a folder without an ONNX graph and for a config.json that does not match the graph.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as ortNode from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import type { OrtLoader } from '../../../src/app/worker/onnx-runtime.ts';
import type { OrtModuleLike } from '../../../src/rl/frozen-agent.ts';
import { getPreset } from '../../../src/rl/presets.ts';
import { folderFiles, startSession } from '../../helpers/app/session-driver.ts';

const tinyRema = resolve(import.meta.dirname, '../../../public/models/tiny-rema');

const loadOrt: OrtLoader = async () => ({
  ort: ortNode as unknown as OrtModuleLike,
  providers: ['cpu'],
  name: `onnxruntime-node ${ortNode.env.versions.node}`,
});

const config = {
  ...getPreset('tiny-default'),
  frozenAgent: 'reasoning' as const,
  problemsPerStep: 1,
  groupSize: 2,
  maxTurns: 2,
  maxTokensPerTurn: 32,
  evalEvery: 0,
  evalBeforeTrain: false,
  evalSize: 3,
  trainSize: 8,
  steps: 5,
};
const model = { kind: 'local' as const, name: 'tiny-rema', files: folderFiles(tinyRema) };
const onnxSource = { kind: 'local' as const, name: 'tiny-rema-onnx', files: folderFiles(tinyRema) };

describe('in-process session with a frozen ONNX agent', () => {
  it('trains the meta-thinking agent next to a frozen ONNX reasoning agent, and evaluates the ONNX model alone', async () => {
    const s = startSession(loadOrt);
    await s.request({ type: 'load', model, backend: 'wasm', config, onnxModel: onnxSource }, 'ready');
    const frozen = s.events.find((e) => e.type === 'frozen') ?? (await s.request({ type: 'pause' }, 'frozen'));
    expect(frozen).toMatchObject({
      type: 'frozen',
      role: 'reasoning',
      onnx: { name: 'local: tiny-rema-onnx (ONNX)', architecture: 'llama', layers: 3, ep: 'cpu', notice: null },
    });
    if (frozen.type === 'frozen') expect(frozen.onnx?.runtime).toMatch(/^onnxruntime-node \d+\.\d+\.\d+ CPU EP$/);
    // the ONNX files were read with progress, the graph among them
    expect(s.events.some((e) => e.type === 'progress' && e.part === 'ONNX model' && e.file === 'onnx/model.onnx')).toBe(
      true,
    );

    const step = await s.request({ type: 'step' }, 'step');
    expect(step.metrics.step).toBe(1);
    const turns = step.rollouts.flatMap((r) => r.turns);
    const reasoning = turns.filter((t) => t.role === 'reasoning');
    const meta = turns.filter((t) => t.role === 'meta');
    expect(reasoning.length).toBeGreaterThan(0);
    // only the trained agent's turns carry per-token training records
    expect(reasoning.every((t) => t.pieces === undefined && t.advantage === undefined)).toBe(true);
    expect(meta.some((t) => (t.pieces?.length ?? 0) > 0)).toBe(true);

    // plan intervention: the frozen ONNX reasoning agent answers an edited plan
    const problem = step.rollouts[0];
    const iv = await s.request(
      {
        type: 'intervene',
        requestId: 3,
        question: problem.question,
        gold: problem.gold,
        plan: 'Add the numbers.',
        originalPlan: problem.turns[0].text,
      },
      'intervention',
    );
    expect(iv.result.edited.plan).toBe('Add the numbers.');
    expect(iv.result.edited.tokens).toBeGreaterThan(0);

    // Evaluate runs the trained meta-thinking agent with the frozen ONNX reasoning agent
    const heldOut = await s.request({ type: 'evaluate' }, 'evaluation');
    expect(heldOut).toMatchObject({ step: 1, n: 3 });
    expect(heldOut.rollouts.some((r) => r.turns.some((t) => t.role === 'reasoning'))).toBe(true);

    const evaluation = await s.request({ type: 'evaluateOnnx', config, onnxModel: onnxSource }, 'onnxEvaluation');
    expect(evaluation.result.n).toBe(3);
    expect(evaluation.result.rollouts).toHaveLength(3);
    expect(evaluation.result.accuracy).toBeGreaterThanOrEqual(0);
    expect(evaluation.result.accuracy).toBeLessThanOrEqual(1);
    expect(evaluation.result.onnx.name).toBe('local: tiny-rema-onnx (ONNX)');
    // one agent answers each problem in VRP
    expect(evaluation.result.rollouts.every((r) => r.turns.length === 1)).toBe(true);
    // the trainer is untouched: the next step is step 2
    expect((await s.request({ type: 'step' }, 'step')).metrics.step).toBe(2);
  });

  it('a frozen ONNX meta-thinking agent: the reasoning agent trains, the plans come from the ONNX model', async () => {
    const s = startSession(loadOrt);
    await s.request(
      { type: 'load', model, backend: 'wasm', config: { ...config, frozenAgent: 'meta' }, onnxModel: onnxSource },
      'ready',
    );
    const step = await s.request({ type: 'step' }, 'step');
    const turns = step.rollouts.flatMap((r) => r.turns);
    expect(turns.filter((t) => t.role === 'meta').every((t) => t.pieces === undefined)).toBe(true);
    expect(turns.some((t) => t.role === 'reasoning' && (t.pieces?.length ?? 0) > 0)).toBe(true);
    expect(s.events.filter((e) => e.type === 'frozen').at(-1)).toMatchObject({ role: 'meta' });
  });

  it('a folder without onnx/model.onnx, and a config.json that does not match the graph, are explained', async () => {
    const s = startSession(loadOrt);
    await s.request({ type: 'load', model, backend: 'wasm', config: { ...config, frozenAgent: 'none' } }, 'ready');
    const noGraph = {
      kind: 'local' as const,
      name: 'weights-only',
      files: folderFiles(tinyRema, (p) => p.startsWith('onnx/')),
    };
    const missing = await s.request({ type: 'loadOnnx', onnxModel: noGraph }, 'error');
    expect(missing).toMatchObject({ type: 'error', fatal: false });
    if (missing.type === 'error') {
      expect(missing.message).toContain('could not load the ONNX model "local: weights-only"');
      expect(missing.message).toContain('onnx/model.onnx');
    }

    const files = folderFiles(tinyRema);
    const wrongConfig = { ...JSON.parse(readFileSync(join(tinyRema, 'config.json'), 'utf8')), num_hidden_layers: 2 };
    files.set('config.json', new File([JSON.stringify(wrongConfig)], 'config.json'));
    const mismatch = await s.request(
      { type: 'loadOnnx', onnxModel: { kind: 'local', name: 'mismatch', files } },
      'error',
    );
    expect(mismatch).toMatchObject({ type: 'error', fatal: false });
    if (mismatch.type === 'error') {
      expect(mismatch.message).toContain('local: mismatch/onnx/model.onnx');
      expect(mismatch.message).toMatch(/3 past_key_values inputs but config.json has 2 layers/);
    }
    // the session still trains
    expect((await s.request({ type: 'step' }, 'step')).metrics.step).toBe(1);
  });
});
