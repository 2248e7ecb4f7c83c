// The page's ONNX model loader over the RL core's loadOnnxAgent: what the header learns about the model (name,
// architecture, execution provider, runtime) and the notice when the WebGPU execution provider cannot open the
// model and the next provider takes over. onnxruntime-node stands in for onnxruntime-web; an execution provider
// name it does not have plays the WebGPU EP that fails (onnxruntime rejects it when the session is created).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import * as ortNode from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { openOnnxModel } from '../../../src/app/worker/onnx-agent.ts';
import type { OrtLoader } from '../../../src/app/worker/onnx-runtime.ts';
import { memoryFileSource } from '../../../src/engine/io/memory-source.ts';
import type { OrtModuleLike } from '../../../src/rl/frozen-agent.ts';

const tinyRema = resolve(import.meta.dirname, '../../../public/models/tiny-rema');

function folderBytes(root: string): Record<string, Uint8Array> {
  const out: Record<string, Uint8Array> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else out[relative(root, full)] = new Uint8Array(readFileSync(full));
    }
  };
  walk(root);
  return out;
}

/** onnxruntime-node; for "webgpu" the first provider is one onnxruntime does not have, then the CPU one. */
const loader: OrtLoader = async (ep) => ({
  ort: ortNode as unknown as OrtModuleLike,
  providers: ep === 'webgpu' ? ['no-such-webgpu-ep', 'cpu'] : ['cpu'],
  name: `onnxruntime-node ${ortNode.env.versions.node}`,
});

describe('openOnnxModel', () => {
  const source = memoryFileSource('tiny-rema', folderBytes(tinyRema));

  it('describes the model and the execution provider that runs it, with per-file progress', async () => {
    const files: string[] = [];
    const { agent, info } = await openOnnxModel(source, 'tiny-rema', 'wasm', loader, (file) => files.push(file));
    expect(info).toEqual({
      name: 'tiny-rema (ONNX)',
      architecture: 'llama',
      layers: 3,
      ep: 'cpu',
      runtime: `onnxruntime-node ${ortNode.env.versions.node} CPU EP`,
      notice: null,
    });
    expect(new Set(files)).toEqual(new Set(['config.json', 'onnx/model.onnx']));
    // the policy answers: one greedy token from the chat-templated prompt
    const prompt = agent.tokenizer.encode(
      agent.tokenizer.applyChatTemplate([{ role: 'user', content: 'What is 2 + 3?' }], { addGenerationPrompt: true }),
    );
    const [gen] = await agent.policy.generate(
      [{ prompt, maxNewTokens: 1, stopTokenIds: [], stopStrings: [], adapter: null }],
      { temperature: 0, topP: 1, topK: 0, seed: 0 },
    );
    expect(gen.tokens).toHaveLength(1);
  });

  it('a WebGPU execution provider that cannot open the model falls back, with a notice naming the file', async () => {
    const { info } = await openOnnxModel(source, 'tiny-rema', 'webgpu', loader);
    expect(info.ep).toBe('cpu');
    expect(info.runtime).toMatch(/CPU EP$/);
    expect(info.notice).toContain('WebGPU execution provider could not open tiny-rema/onnx/model.onnx');
    // and says what onnxruntime answered, naming the provider it tried
    expect(info.notice).toMatch(/tiny-rema\/onnx\/model\.onnx \(no-such-webgpu-ep: .+\); it runs/);
  });
});
