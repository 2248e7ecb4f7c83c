// Constrained generation end to end on the embedded tiny model: requests carrying the meta-action grammar
// (GenerateRequest.constraint) are decoded under its token mask by every runtime: the engine on the CPU, WASM and
// WebGPU backends (the `sample` kernel's mask, uploaded per step) and the frozen ONNX agent (the host sampler).
// Every answer is complete, valid JSON of the grammar at any temperature, the CPU and WASM draws are the same, and
// an unconstrained request in the same batch is not masked.
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directoryFileSource } from '../../../src/cli/fs-source.ts';
import { ortNode } from '../../../src/cli/onnx-agent.ts';
import { loadHfTokenizer } from '../../../src/data/hf-tokenizer.ts';
import type { ChatTokenizer } from '../../../src/data/tokenizer.ts';
import type { Backend } from '../../../src/engine/backend.ts';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { WasmBackend } from '../../../src/engine/backends/wasm.ts';
import { WebGpuBackend } from '../../../src/engine/backends/webgpu.ts';
import { loadHfCheckpoint, type HfCheckpoint } from '../../../src/engine/io/hf-model.ts';
import type { Generation, GenerateRequest, Policy } from '../../../src/engine/policy/policy.ts';
import { loadOnnxAgent, type OnnxAgent } from '../../../src/rl/frozen-agent.ts';
import { parseMetaAction } from '../../../src/rl/protocol/json-actions/grammar.ts';
import { ActionTokenMask } from '../../../src/rl/protocol/json-actions/token-mask.ts';
import { policyForConfig } from '../../../src/rl/policy-setup.ts';
import { getPreset } from '../../../src/rl/presets.ts';
import { getTestDevice, testBackend } from '../../helpers/webgpu.ts';

const files = directoryFileSource(resolve(import.meta.dirname, '../../../public/models/tiny-rema'), 'tiny-rema');
let checkpoint: HfCheckpoint;
let tokenizer: ChatTokenizer;
let onnx: OnnxAgent;
let gpu: WebGpuBackend;

beforeAll(async () => {
  [checkpoint, tokenizer, onnx] = await Promise.all([
    loadHfCheckpoint(files),
    loadHfTokenizer(files),
    loadOnnxAgent(files, ortNode),
  ]);
  const dawn = await getTestDevice();
  gpu = testBackend(dawn);
});
afterAll(() => gpu?.destroy());

function requests(constraint: ActionTokenMask, cap: number): GenerateRequest[] {
  const prompt = tokenizer.encode(
    tokenizer.applyChatTemplate(
      [
        { role: 'system', content: 'You plan. Answer in JSON.' },
        { role: 'user', content: 'Ann has 3 apples. She buys 4 more. How many apples does she have now?' },
      ],
      { addGenerationPrompt: true },
    ),
  );
  const one = { prompt, adapter: null, maxNewTokens: cap, stopStrings: [], stopTokenIds: tokenizer.stopTokenIds };
  return [...Array.from({ length: 5 }, () => ({ ...one, constraint })), { ...one, maxNewTokens: 12 }];
}

function enginePolicy(backend: Backend): Policy {
  return policyForConfig(getPreset('tiny-default'), { backend, checkpoint, decoder: tokenizer });
}

function expectValid(out: Generation[], cap: number, what: string): void {
  out.slice(0, 5).forEach((g, i) => {
    expect(g.finish, `${what} #${i}: ${g.text}`).toBe('stop_token');
    expect(g.tokens.length).toBeLessThan(cap);
    expect(parseMetaAction(g.text), `${what} #${i}: ${g.text}`).not.toBeNull();
  });
}

describe('constrained generation (meta-action JSON) on every runtime', () => {
  it('CPU, WASM and WebGPU engines and the ONNX agent always give a valid answer; CPU and WASM draw the same', async () => {
    const mask = ActionTokenMask.forTokenizer(tokenizer, checkpoint.config.vocabSize);
    const wasm = await WasmBackend.create();
    const runtimes: Array<[string, Policy]> = [
      ['cpu', enginePolicy(new CpuBackend())],
      ['wasm', enginePolicy(wasm)],
      ['webgpu', enginePolicy(gpu)],
      ['onnx', onnx.policy],
    ];
    for (const [temperature, cap] of [
      [0, 60],
      [1, 40],
      [2.5, 36],
    ] as const) {
      const byRuntime = new Map<string, Generation[]>();
      for (const [name, policy] of runtimes) {
        const out = await policy.generate(requests(mask, cap), { temperature, topK: 0, topP: 1, seed: 5 });
        expectValid(out, cap, `${name} T=${temperature} cap ${cap}`);
        byRuntime.set(name, out);
      }
      expect(
        byRuntime.get('wasm')!.map((g) => g.tokens),
        `T=${temperature}`,
      ).toEqual(byRuntime.get('cpu')!.map((g) => g.tokens));
      // the unconstrained request: the tiny model's own plan text, not JSON
      expect(byRuntime.get('cpu')![5].text.startsWith('{"action"')).toBe(false);
    }
  });
});
