// `rema plan` end to end (real child processes, an empty hub cache, offline): the acceptance check on
// math133-qwen0.5b (494,032,768 parameters, the JSON keys), the WASM 4 GiB limit and --memory, a suggestion
// that really fits when applied, WebGPU without --memory, f16 weights, the math133 presets within 4 GiB (decodeBatch),
// WebGPU's binding check (--binding-limit) and its fix, and bad input named by its flag.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bytesFlag } from '../../src/cli/plan.ts';
import { loadConfigProblems } from '../../src/cli/setup.ts';
import { directoryFileSource } from '../../src/cli/fs-source.ts';
import { loadHfTokenizer } from '../../src/data/hf-tokenizer.ts';
import { ADAMW_SCALARS } from '../../src/engine/optim/adamw.ts';
import { getPreset } from '../../src/rl/presets.ts';
import { chatFor } from '../../src/rl/protocol/episode.ts';
import { promptsFor } from '../../src/rl/prompts/index.ts';
import { freshEpisodes } from '../../src/rl/train/episodes.ts';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/rema.mjs');
const env = { ...process.env, HF_HUB_OFFLINE: '1', HF_HUB_CACHE: mkdtempSync(join(tmpdir(), 'rema-plan-cache-')) };
const rema = (...args: string[]) => spawnSync('node', [bin, 'plan', ...args], { cwd: root, encoding: 'utf8', env });

interface PlanJson {
  parameters: number;
  bytes: Record<'weights' | 'lora' | 'optimizer' | 'kv_cache' | 'activations' | 'total', number>;
  fits: boolean | null;
  suggestion: { set: Record<string, unknown>; weightDtype?: string; total: number; flags: string } | null;
  limit: number | null;
  weightDtype: string;
  kvCacheDtype: string;
  bindings: {
    limit: number;
    largest: { tensor: string; bytes: number };
    breaks: Array<{ tensor: string; bytes: number; fitsUpTo: number }>;
    fix: Record<string, unknown> | null;
  } | null;
  shape: {
    decode: { sequences: number; promptTokens: number };
    evalDecode?: { sequences: number; uniquePrompts: number; promptTokens: number };
  };
}

function plan(...args: string[]): PlanJson {
  const r = rema(...args, '--json');
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  const lines = r.stdout.trim().split('\n');
  expect(lines.length).toBe(1);
  return JSON.parse(lines[0]) as PlanJson;
}

describe('rema plan', () => {
  it("math133-qwen0.5b offline: Qwen2.5-0.5B-Instruct's 494,032,768 parameters, bytes by category, fits, suggestion", () => {
    // all 64 rollouts decoded at once (the preset decodes 32 at a time)
    const p = plan('--preset', 'math133-qwen0.5b', '--set', 'decodeBatch=64');
    expect(Object.keys(p)).toEqual(expect.arrayContaining(['parameters', 'bytes', 'fits', 'suggestion']));
    expect(p.parameters).toBe(494_032_768);
    expect(Object.keys(p.bytes)).toEqual(['weights', 'lora', 'optimizer', 'kv_cache', 'activations', 'total']);
    expect(p.bytes.weights).toBe(494_032_768 * 4);
    // LoRA r 8 on all 7 projections of 24 layers: weights + gradients, and AdamW's two moments (+ its norm scalar)
    const loraFloats = 24 * 8 * (2 * (896 + 896) + 2 * (896 + 128) + 3 * (896 + 4864));
    expect(p.bytes.lora).toBe(2 * 4 * loraFloats);
    expect(p.bytes.optimizer).toBe(2 * 4 * loraFloats + 4 * ADAMW_SCALARS); // moments, Σ g² and the step's state
    expect(p.bytes.total).toBeGreaterThanOrEqual(p.bytes.weights + p.bytes.lora + p.bytes.optimizer + p.bytes.kv_cache);
    // the wasm backend's 4 GiB (less its 256 MiB scratch headroom) is the default limit
    expect(p.limit).toBe(4 * 1024 ** 3 - 256 * 1024 ** 2);
    expect(p.fits).toBe(false);
    expect(p.suggestion).not.toBeNull();
    expect(p.suggestion!.total).toBeLessThanOrEqual(p.limit!);
    // with bf16 / f16 base weights it fits as it is: the prefill runs in passes of at most 2,048 prompt tokens
    // (one 1,536-token prompt at a time), not all 64 prompts at once
    for (const dtype of ['bf16', 'f16']) {
      const half = plan('--preset', 'math133-qwen0.5b', '--set', 'decodeBatch=64', '--weight-dtype', dtype);
      expect(half.fits, dtype).toBe(true);
      expect(half.bytes.total).toBeLessThanOrEqual(half.limit!);
    }
  });

  it('the suggestion fits when applied, and --memory sets the limit', () => {
    const p = plan('--preset', 'math133-qwen0.5b', '--set', 'decodeBatch=64', '--memory', '4GiB');
    expect(p.limit).toBe(4 * 1024 ** 3);
    expect(p.fits).toBe(false);
    const flags = p.suggestion!.flags.split(' ');
    const applied = plan('--preset', 'math133-qwen0.5b', '--set', 'decodeBatch=64', '--memory', '4GiB', ...flags);
    expect(applied.fits).toBe(true);
    expect(applied.bytes.total).toBe(p.suggestion!.total);
    expect(applied.suggestion).toBeNull();
    const roomy = plan('--preset', 'math133-qwen0.5b', '--memory', '64GiB');
    expect(roomy.fits).toBe(true);
    expect(roomy.suggestion).toBeNull();
  });

  it('f16 weights halve the weights, and on webgpu the KV cache (stored in f16 there); webgpu without --memory cannot say whether it fits', () => {
    const f32 = plan('--preset', 'math133-smollm360m', '--backend', 'webgpu');
    expect(f32.fits).toBeNull();
    expect(f32.parameters).toBe(361_821_120);
    const f16 = plan('--preset', 'math133-smollm360m', '--backend', 'webgpu', '--weight-dtype', 'f16');
    expect(f16.bytes.weights).toBe(f32.bytes.weights / 2);
    expect(f16.weightDtype).toBe('f16');
    expect([f32.kvCacheDtype, f16.kvCacheDtype]).toEqual(['f32', 'f16']);
    expect(f16.bytes.kv_cache).toBe(f32.bytes.kv_cache / 2);
    // the WASM backend keeps its cache in f32 whatever the weights
    const wasm = plan('--preset', 'math133-smollm360m', '--backend', 'wasm', '--weight-dtype', 'f16');
    expect(wasm.kvCacheDtype).toBe('f32');
    expect(wasm.bytes.kv_cache).toBe(f32.bytes.kv_cache);
    const text = rema('--preset', 'math133-smollm360m', '--backend', 'webgpu', '--weight-dtype', 'f16');
    expect(text.stdout).toMatch(/parameters, base weights f16, KV cache f16\n/);
  });

  it('the text report and the errors', () => {
    const r = rema('--preset', 'tiny-default');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^tiny-rema: 171,456 parameters, base weights f32, KV cache f32\n/);
    expect(r.stdout).toMatch(
      /\n {2}total \(peak\) +\d+ B {2}[\d.]+ MiB\n {2}host rows +\d+ B {2}[\d.]+ [KM]iB\nfits: yes/,
    );
    const bad = rema('--preset', 'tiny-default', '--memory', 'lots');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/--memory: "lots" is not a positive number of bytes/);
    const unknown = rema('--preset', 'math133-qwen0.5b', '--set', 'model=someone/not-cached');
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(
      /"someone\/not-cached" is not in the model catalog and its config\.json is not available offline/,
    );
    const cpu = rema('--preset', 'tiny-default', '--backend', 'cpu', '--weight-dtype', 'f16');
    expect(cpu.status).toBe(1);
    expect(cpu.stderr).toMatch(/the cpu backend stores weights as f32 only/);
  });

  it("counts the prompts with the model's own tokenizer when it is on disk (a byte-level vocabulary)", async () => {
    const fixture = 'tests/fixtures/hf/tiny-smollm2-instruct';
    const sets = [
      '--set',
      'modelSource=local',
      '--set',
      `model=${fixture}`,
      '--set',
      'maxTurns=1',
      '--set',
      'maxTokensPerTurn=32',
      '--set',
      'maxPromptTokens=4096',
    ];
    const p = plan('--preset', 'math133-smollm360m', ...sets);
    // the trainer's first prompt of every problem (meta agent: system + question), through the fixture's tokenizer
    const config = { ...getPreset('math133-smollm360m'), maxTurns: 1, maxTokensPerTurn: 32, maxPromptTokens: 4096 };
    const tokenizer = await loadHfTokenizer(directoryFileSource(join(root, fixture)));
    const { train, eval: held } = await loadConfigProblems(config, {});
    const prompts = promptsFor(config.prompts, config.mode, 'math');
    const longest = Math.max(
      ...freshEpisodes([...train, ...held], 1, 'two-agent').map(
        (e) =>
          tokenizer.encode(tokenizer.applyChatTemplate(chatFor(e, 'meta', prompts), { addGenerationPrompt: true }))
            .length,
      ),
    );
    expect(longest).toBeGreaterThan(256 + 32); // the estimate (256 tokens before the first message) falls short here
    // the reasoning agent's prompt also holds the plan (32 tokens); the fixture's context is 2,048 tokens
    expect(p.shape.decode.promptTokens).toBeGreaterThanOrEqual(Math.min(longest, 2047));
    expect(p.shape.decode.promptTokens).toBeLessThanOrEqual(Math.min(1.5 * longest + 32, 2047));
  });

  it('sizes the held-out evaluation: evalSize distinct prompts decoded together, a stage of its own', () => {
    const sets = [
      '--set',
      'groupSize=2',
      '--set',
      'problemsPerStep=1',
      '--set',
      'miniBatches=1',
      '--set',
      'decodeBatch=64',
    ];
    const small = plan('--preset', 'math133-qwen0.5b', ...sets, '--set', 'evalSize=8');
    const big = plan('--preset', 'math133-qwen0.5b', ...sets, '--set', 'evalSize=48');
    expect(small.shape.decode.sequences).toBe(2);
    expect(big.shape.evalDecode).toEqual(expect.objectContaining({ sequences: 48, uniquePrompts: 48 }));
    expect(big.bytes.total).toBeGreaterThan(small.bytes.total);
    expect(big.bytes.kv_cache).toBe(6 * small.bytes.kv_cache); // 48 rows of cache instead of 8
    // decodeBatch 16: the 48 held-out prompts are decoded 16 at a time
    const capped = plan('--preset', 'math133-qwen0.5b', ...sets, '--set', 'evalSize=48', '--set', 'decodeBatch=16');
    expect(capped.shape.evalDecode).toEqual(expect.objectContaining({ sequences: 16, uniquePrompts: 16 }));
    expect(capped.bytes.kv_cache).toBe(2 * small.bytes.kv_cache);
  });

  it("every math133 preset fits WebAssembly's 4 GiB with f16 / bf16 weights; decoding all 64 rollouts at once, the suggestion is a smaller decodeBatch", () => {
    for (const preset of ['math133-qwen0.5b', 'math133-vrp-rl', 'math133-smollm360m', 'math133-vrp-rl-smollm360m']) {
      for (const dtype of ['f16', 'bf16']) {
        const p = plan('--preset', preset, '--backend', 'wasm', '--weight-dtype', dtype);
        expect(p.fits, `${preset} ${dtype}: ${p.bytes.total} B`).toBe(true);
        expect(p.limit).toBe(4 * 1024 ** 3 - 256 * 1024 ** 2);
        expect(p.shape.decode.sequences).toBeLessThan(64);
      }
    }
    const all = plan('--preset', 'math133-smollm360m', '--set', 'decodeBatch=64');
    expect(all.fits).toBe(false);
    expect(all.shape.decode.sequences).toBe(64);
    expect(all.suggestion!.set).toEqual({ decodeBatch: 16 });
    expect(all.suggestion!.flags).toBe('--set decodeBatch=16');
    const applied = plan(
      '--preset',
      'math133-smollm360m',
      '--set',
      'decodeBatch=64',
      ...all.suggestion!.flags.split(' '),
    );
    expect(applied.fits).toBe(true);
    expect(applied.bytes.kv_cache).toBe(all.bytes.kv_cache / 4);
  });

  it('on webgpu: the largest tensor bound whole against maxStorageBufferBindingSize, the limit a config breaks and what to change', () => {
    // 64 sequences of 1,536 + 4,096 tokens: Qwen2.5-0.5B's KV cache [64, 5632, 2, 64] f32 per layer is 176 MiB
    const sets = ['--preset', 'math133-qwen0.5b', '--backend', 'webgpu', '--set', 'decodeBatch=64'];
    const long = [...sets, '--set', 'maxTokensPerTurn=4096'];
    const p = plan(...long);
    expect(p.bindings!.limit).toBe(128 * 1024 ** 2);
    expect(p.bindings!.breaks[0]).toMatchObject({ tensor: 'rollout KV cache [64, 5632, 2, 64]', bytes: 184549376 });
    expect(p.bindings!.fix).toEqual({ decodeBatch: 46 });
    const text = rema(...long).stdout;
    expect(text).toMatch(/largest binding: rollout KV cache \[64, 5632, 2, 64\], 184549376 B \(176\.0 MiB\)/);
    expect(text).toMatch(/breaks maxStorageBufferBindingSize \(134217728 B\): .*; --set decodeBatch=46\n/);
    const fixed = plan(...long, '--set', 'decodeBatch=46');
    expect(fixed.bindings!.breaks).toEqual([]);
    expect(fixed.bindings!.largest.bytes).toBeLessThanOrEqual(128 * 1024 ** 2);
    // an adapter that grants 1 GiB per binding holds it as it is
    expect(plan(...long, '--binding-limit', '1GiB').bindings!.breaks).toEqual([]);
    expect(plan('--preset', 'tiny-default').bindings).toBeNull(); // not checked on the CPU backends
  });

  it('parses byte sizes', () => {
    expect(bytesFlag('--memory', '4294967296')).toBe(4294967296);
    expect(bytesFlag('--memory', '4GiB')).toBe(4 * 1024 ** 3);
    expect(bytesFlag('--memory', '512 MiB')).toBe(512 * 1024 ** 2);
    expect(bytesFlag('--memory', '8GB')).toBe(8e9);
    expect(() => bytesFlag('--memory', '-1')).toThrow(/--memory: "-1"/);
  });
});
