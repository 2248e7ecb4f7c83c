// A plan intervention in meta-action JSON mode (config.metaActions "json"): the reasoning agent executes the
// edited action as in training (protocol/json-actions): DECOMPOSE / REWRITE give it the question with the output
// as its instruction, EMPTY the question alone. The real tiny-rema engine answers; the prompts it was given are
// read off its generate calls.
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { directoryFileSource } from '../../src/cli/fs-source.ts';
import { loadHfTokenizer } from '../../src/data/hf-tokenizer.ts';
import type { ChatTokenizer } from '../../src/data/tokenizer.ts';
import { tinyArithProblems } from '../../src/data/tiny-task/dataset.ts';
import { CpuBackend } from '../../src/engine/backends/cpu.ts';
import { loadHfCheckpoint, type HfCheckpoint } from '../../src/engine/io/hf-model.ts';
import type { GenerateRequest } from '../../src/engine/policy/policy.ts';
import { validateConfig } from '../../src/rl/config.ts';
import { followPlan, interventionProblem } from '../../src/rl/intervention.ts';
import { policyForConfig } from '../../src/rl/policy-setup.ts';
import { getPreset } from '../../src/rl/presets.ts';

const files = directoryFileSource(resolve(import.meta.dirname, '../../public/models/tiny-rema'), 'tiny-rema');
let checkpoint: HfCheckpoint;
let tokenizer: ChatTokenizer;

beforeAll(async () => {
  [checkpoint, tokenizer] = await Promise.all([loadHfCheckpoint(files), loadHfTokenizer(files)]);
});

/** The reasoning agent's prompt text for each plan, from the real engine's generate calls. */
async function reasoningPrompt(plan: string, question: string, answer: string): Promise<string> {
  const config = validateConfig({ maxTokensPerTurn: 24 }, 'test', getPreset('tiny-json-actions'));
  const policy = policyForConfig(config, { backend: new CpuBackend(), checkpoint, decoder: tokenizer });
  const prompts: string[] = [];
  const generate = policy.generate.bind(policy);
  policy.generate = (requests: GenerateRequest[], sampling) => {
    for (const r of requests) prompts.push(tokenizer.decode(r.prompt));
    return generate(requests, sampling);
  };
  const trace = await followPlan(
    { policy, tokenizer, config, maxContext: 256 },
    interventionProblem(question, answer, config),
    plan,
  );
  expect(trace.plan).toBe(plan);
  return prompts[0];
}

describe('plan intervention in JSON mode', () => {
  const [problem] = tinyArithProblems({ split: 'heldout', count: 1, seed: 5 });

  it('DECOMPOSE: the reasoning agent gets the output as its instruction, not the JSON', async () => {
    const prompt = await reasoningPrompt(
      '{"action": "DECOMPOSE", "output": "Add 3. Then subtract 2."}',
      problem.question,
      problem.answer,
    );
    expect(prompt).toContain(`Question:\n${problem.question}\n\nInstruction:\nAdd 3. Then subtract 2.`);
    expect(prompt).not.toContain('"action"');
  });

  it('EMPTY: the reasoning agent gets the question alone', async () => {
    const prompt = await reasoningPrompt('{"action": "EMPTY", "output": ""}', problem.question, problem.answer);
    expect(prompt).toContain(problem.question);
    expect(prompt).not.toContain('Instruction:');
    expect(prompt).not.toContain('"action"');
  });
});
