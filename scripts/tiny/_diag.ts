import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHfTokenizer } from '../../src/data/hf-tokenizer.ts';
import { tinyArithProblems } from '../../src/data/tiny-task/dataset.ts';
import { WasmBackend } from '../../src/engine/backends/wasm.ts';
import { createEnginePolicy } from '../../src/engine/engine-policy.ts';
import { deserializeModelWeights } from '../../src/engine/io/hf-model.ts';
import { tinyModelConfig } from './model-init.ts';
import { greedyEpisodes } from './rollout.ts';
const dir = 'public/models/tiny-rema/';
const tok = createHfTokenizer(JSON.parse(readFileSync(dir+'tokenizer.json','utf8')), JSON.parse(readFileSync(dir+'tokenizer_config.json','utf8')));
const [ck, d, L, F] = process.argv.slice(2);
const config = tinyModelConfig({ hidden: +d, layers: +L, heads: 4, kvHeads: 2, intermediate: +F, vocab: 256, context: 256 });
const weights = deserializeModelWeights(new Uint8Array(readFileSync(join(ck, 'model.safetensors'))), config);
const policy = createEnginePolicy({ backend: await WasmBackend.create({ variant: 'simd' }), config, weights, decoder: tok, training: { mode: 'full', adapters: ['full'] },
  optimizer: { lr: 0, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0, gradClip: 0, schedule: { kind: 'constant' } }, seed: 0 });
const problems = tinyArithProblems({ split: 'heldout', count: 9, seed: 12345 });
for (const e of await greedyEpisodes(policy, tok, problems, 'full', 256)) console.log(e.problem.question, '| gold', e.problem.answer, '\n  ', JSON.stringify(e.turns));
