// Test helper: a model folder on disk in the Hugging Face layout (config.json, model.safetensors, the tiny
// tokenizer files) holding a tiny random-weight Llama, so the CLI can be run end to end without trained weights.
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serializeModelWeights } from '../../../src/engine/io/hf-model.ts';
import { llamaConfigJson, randomWeights, tinyConfig } from '../engine/model-random.ts';
import { TINY_MODEL_DIR } from '../rl/tiny-tokenizer.ts';

export function writeRandomModel(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rema-random-model-'));
  mkdirSync(dir, { recursive: true });
  const cfg = tinyConfig({ vocabSize: 256, maxPositionEmbeddings: 256 });
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify(llamaConfigJson(cfg, { rope_theta: cfg.ropeTheta, eos_token_id: 2 })),
  );
  writeFileSync(join(dir, 'model.safetensors'), serializeModelWeights(randomWeights(cfg, 9)));
  for (const f of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(TINY_MODEL_DIR, f), join(dir, f));
  return dir;
}

/** --set flags that make a preset run fast on the random model. */
export function fastFlags(modelDir: string): string[] {
  const sets = {
    modelSource: 'local',
    model: modelDir,
    problemsPerStep: 2,
    groupSize: 2,
    maxTurns: 2,
    maxTokensPerTurn: 6,
    maxPromptTokens: 200,
    evalSize: 2,
    evalEvery: 2,
    entropyCoef: 0.01,
    lr: 0.01,
    trainSize: 16,
  };
  return Object.entries(sets).flatMap(([k, v]) => ['--set', `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`]);
}
