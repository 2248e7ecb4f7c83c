// loadOnnxAgent on the shipped model: public/models/tiny-rema/onnx/model.onnx (scripts/onnx/export_hf_onnx.py) is
// the same model as public/models/tiny-rema/model.safetensors on our engine: equal log-probs on real chat prompts and
// equal greedy generations (a stale ONNX file fails here), and clear errors for incomplete folders.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import * as ort from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import { directoryFileSource } from '../../src/cli/fs-source.ts';
import { ortNode } from '../../src/cli/onnx-agent.ts';
import { loadHfTokenizer } from '../../src/data/hf-tokenizer.ts';
import { tinyArithProblems } from '../../src/data/tiny-task/dataset.ts';
import { CpuBackend } from '../../src/engine/backends/cpu.ts';
import { createEnginePolicy } from '../../src/engine/policy/engine-policy.ts';
import { loadHfCheckpoint } from '../../src/engine/io/hf-model.ts';
import { memoryFileSource } from '../../src/engine/io/memory-source.ts';
import type { SamplingParams } from '../../src/engine/policy/policy.ts';
import { loadOnnxAgent, type OrtModuleLike } from '../../src/rl/frozen-agent.ts';
import { promptsFor } from '../../src/rl/prompts/index.ts';
import { encodeChat } from '../../src/rl/protocol/encode.ts';
import { chatFor, type Episode } from '../../src/rl/protocol/episode.ts';

const dir = resolve(import.meta.dirname, '../../public/models/tiny-rema');
const files = directoryFileSource(dir, 'public/models/tiny-rema');

async function enginePolicy() {
  const { config, weights } = await loadHfCheckpoint(files);
  const tokenizer = await loadHfTokenizer(files);
  const policy = createEnginePolicy({
    backend: new CpuBackend(),
    config,
    weights,
    decoder: tokenizer,
    training: { mode: 'lora', adapters: ['shared'], rank: 2, alpha: 4, targets: ['q'] },
    optimizer: {
      lr: 0,
      beta1: 0.9,
      beta2: 0.999,
      eps: 1e-8,
      weightDecay: 0,
      gradClip: 0,
      schedule: { kind: 'constant' },
    },
    seed: 0,
  });
  return { policy, tokenizer };
}

describe('loadOnnxAgent on the shipped tiny-rema ONNX export', () => {
  it('generates and scores like the safetensors model on the engine (real chat prompts, greedy)', async () => {
    const onnx = await loadOnnxAgent(files, ortNode, { executionProviders: ['cpu'] });
    expect(onnx.modelFile).toBe('onnx/model.onnx');
    expect(onnx.executionProvider).toBe('cpu');
    const engine = await enginePolicy();
    expect(onnx.config).toEqual((await loadHfCheckpoint(files)).config);

    // the meta-thinking agent's first prompt for three held-out problems, as the rollout renders it
    const prompts = promptsFor('tiny', 'multi-turn', 'math');
    const episodes: Episode[] = tinyArithProblems({ split: 'heldout', count: 3, seed: 7 }).map((problem, i) => ({
      problem,
      group: i,
      sample: 0,
      kind: 'two-agent',
      messages: [],
      finish: null,
    }));
    const promptIds = episodes.map((e) => encodeChat(onnx.tokenizer, chatFor(e, 'meta', prompts), [], true).tokens);
    const greedy: SamplingParams = { temperature: 0, topP: 1, topK: 0, seed: 0 };
    const requests = promptIds.map((prompt) => ({
      prompt,
      adapter: null,
      maxNewTokens: 48,
      stopStrings: [],
      stopTokenIds: onnx.tokenizer.stopTokenIds,
    }));
    const [a, b] = [await onnx.policy.generate(requests, greedy), await engine.policy.generate(requests, greedy)];
    expect(a.map((g) => g.text)).toEqual(b.map((g) => g.text));
    expect(a.map((g) => g.finish)).toEqual(b.map((g) => g.finish));
    expect(a.every((g) => g.tokens.length > 3)).toBe(true); // the trained model writes a plan, not nothing

    // then the reasoning agent's prompt (question + that plan), scored at every position of prompt + plan
    episodes.forEach((e, i) =>
      e.messages.push({
        role: 'meta',
        text: a[i].text,
        generated: a[i].tokens.length,
        truncated: false,
        endedNormally: true,
        dummy: false,
      }),
    );
    const seqs = episodes.map((e, i) => [
      ...encodeChat(onnx.tokenizer, chatFor(e, 'reasoning', prompts), [], true).tokens,
      ...a[i].tokens,
    ]);
    const score = seqs.map((tokens) => ({ tokens, positions: tokens.slice(1).map((_, t) => t + 1), adapter: null }));
    const [x, y] = [await onnx.policy.score(score), await engine.policy.score(score)];
    let worst = 0;
    x.forEach((r, i) => r.logprobs.forEach((lp, j) => (worst = Math.max(worst, Math.abs(lp - y[i].logprobs[j])))));
    expect(worst).toBeLessThan(1e-4);
    engine.policy.dispose();
  });

  it('runs on onnxruntime-web (WASM execution provider, as the page does)', async () => {
    ort.env.wasm.numThreads = 1;
    const web = await loadOnnxAgent(files, ort as unknown as OrtModuleLike, { executionProviders: ['webgpu', 'wasm'] });
    // no WebGPU in Node's onnxruntime-web build: the loader falls back to the next provider and says so
    expect(web.executionProvider).toBe('wasm');
    expect(web.fallbacks).toHaveLength(1);
    expect(web.fallbacks[0]).toMatch(/^webgpu: ./);
    const node = await loadOnnxAgent(files, ortNode);
    expect(node.executionProvider).toBe('default');
    const tokens = web.tokenizer.encode('Compute 3 + 4.');
    const req = [{ tokens, positions: tokens.slice(1).map((_, t) => t + 1), adapter: null }];
    const [p, q] = [await web.policy.score(req), await node.policy.score(req)];
    p[0].logprobs.forEach((lp, j) => expect(Math.abs(lp - q[0].logprobs[j])).toBeLessThan(1e-4));
    // dispose() releases the session: onnxruntime refuses to run it afterwards
    await web.policy.dispose();
    await expect(web.policy.score(req)).rejects.toThrow();
    expect(node.fallbacks).toEqual([]);
  });

  it('reads weights stored beside the graph (onnx/model.onnx_data), on node and web, as the single-file model', async () => {
    // tests/fixtures/onnx-external/tiny-rema: export_hf_onnx.py --external-data of the same weights
    const external = directoryFileSource(
      resolve(import.meta.dirname, '../fixtures/onnx-external/tiny-rema'),
      'onnx-external/tiny-rema',
    );
    ort.env.wasm.numThreads = 1;
    const loaded: string[] = [];
    const [single, onNode, onWeb] = [
      await loadOnnxAgent(files, ortNode),
      await loadOnnxAgent(external, ortNode, { onProgress: (file) => loaded.push(file) }),
      await loadOnnxAgent(external, ort as unknown as OrtModuleLike, { executionProviders: ['wasm'] }),
    ];
    expect(new Set(loaded)).toContain('onnx/model.onnx_data');
    const tokens = single.tokenizer.encode(
      single.tokenizer.applyChatTemplate([{ role: 'user', content: 'Tom has 5 cards. He buys 3 more.' }], {
        addGenerationPrompt: true,
      }),
    );
    const req = [{ tokens, positions: tokens.slice(1).map((_, t) => t + 1), adapter: null }];
    const [a, b, c] = [await single.policy.score(req), await onNode.policy.score(req), await onWeb.policy.score(req)];
    a[0].logprobs.forEach((lp, j) => {
      expect(b[0].logprobs[j]).toBe(lp); // the same weights and graph on the same runtime: bit for bit
      expect(Math.abs(c[0].logprobs[j] - lp)).toBeLessThan(1e-4);
    });
    for (const agent of [single, onNode, onWeb]) await agent.policy.dispose();
  });

  it('names the missing file or the inconsistent field', async () => {
    const all = Object.fromEntries(
      ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx'].map((f) => [
        f,
        new Uint8Array(readFileSync(resolve(dir, f))),
      ]),
    );
    const without = (name: string) =>
      memoryFileSource('m', Object.fromEntries(Object.entries(all).filter(([k]) => k !== name)));
    await expect(loadOnnxAgent(without('config.json'), ortNode)).rejects.toThrow('m/config.json: file not found');
    await expect(loadOnnxAgent(without('tokenizer.json'), ortNode)).rejects.toThrow(/tokenizer\.json/);
    await expect(loadOnnxAgent(without('onnx/model.onnx'), ortNode)).rejects.toThrow(
      'm: no ONNX model (looked for onnx/model.onnx and model.onnx)',
    );
    // a graph at the folder's root is accepted
    const root = { ...all, 'model.onnx': all['onnx/model.onnx'] };
    delete (root as Record<string, Uint8Array>)['onnx/model.onnx'];
    expect((await loadOnnxAgent(memoryFileSource('m', root), ortNode)).modelFile).toBe('model.onnx');
    // config.json that does not describe the graph: the layer count is checked against the past_key_values inputs
    const cfg = JSON.parse(new TextDecoder().decode(all['config.json'])) as Record<string, unknown>;
    const wrong = { ...all, 'config.json': new TextEncoder().encode(JSON.stringify({ ...cfg, num_hidden_layers: 2 })) };
    await expect(loadOnnxAgent(memoryFileSource('m', wrong), ortNode)).rejects.toThrow(
      'm/onnx/model.onnx: ONNX model: 3 past_key_values inputs but config.json has 2 layers',
    );
    await expect(loadOnnxAgent(files, ortNode, { executionProviders: ['no-such-ep'] })).rejects.toThrow(
      /no execution provider could run the model \(no-such-ep: /,
    );
  });
});
