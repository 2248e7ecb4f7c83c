// Writes public/models/tiny-rema/README.md (the model card) from the numbers pretrain.ts measured.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { JUDGE_BASELINE_FILE, type JudgeBaseline } from './judge-baseline.ts';
import { join } from 'node:path';
import type { TinyShape } from './model-init.ts';

type Acc = Record<string, { correct: number; total: number }>;

export interface StageRecord {
  args: { steps: number; scheduledSteps?: number; batch: number; lr: number; seed: number; misread?: number };
  tokensSeen: number;
  targetTokensSeen: number;
  trainSeconds: number;
  /** the stage's own held-out eval, when it had one */
  finalEval?: unknown;
}

interface CardRecord {
  previousStages: StageRecord[];
  args: {
    steps: number;
    scheduledSteps: number;
    batch: number;
    lr: number;
    seed: number;
    misread?: number;
    backend: string;
    shape: TinyShape;
  };
  parameters: number;
  mixture: { judge: number; otherFormats: number };
  levels: Record<string, { equations: number; maxOperand: number; maxValue: number }>;
  tokensSeen: number;
  targetTokensSeen: number;
  trainSeconds: number;
  finalEval: {
    size: number;
    accuracy: Acc;
    finished: number;
    plans: { exact: number; exactAndCorrect: number; empty: number };
    caps: { maxRounds: number; maxTokensPerTurn: number };
  };
  judgeEval: { size: number; accuracy: Acc };
  regression: { size: number; correct: number };
}

/** The card's RL section is written by hand from `rema train` runs; regenerating the card keeps it. */
const RL_SECTION_START = '<!-- rl-results -->';
const RL_SECTION_END = '<!-- /rl-results -->';

function keptRlSection(dir: string): string {
  const file = join(dir, 'README.md');
  if (!existsSync(file)) return '';
  const old = readFileSync(file, 'utf8');
  const a = old.indexOf(RL_SECTION_START);
  const b = old.indexOf(RL_SECTION_END);
  return a >= 0 && b > a ? `${old.slice(a, b + RL_SECTION_END.length)}\n\n` : '';
}

const pct = (r: { correct: number; total: number } | undefined) =>
  r ? `${((100 * r.correct) / r.total).toFixed(1)}% (${r.correct}/${r.total})` : '-';

/** "54.0% (162/300)" from a stage's final eval (pretrain.ts's record or a checkpoint's last in-run eval). */
function stageAccuracy(st: StageRecord): string {
  const ev = st.finalEval as { accuracy?: Acc; evalAccuracy?: Acc } | null | undefined;
  return pct((ev?.accuracy ?? ev?.evalAccuracy)?.all);
}

/** The judge figure under the current tiny prompts, from judge-eval.json (scripts/tiny/judge-baseline.ts). */
function currentPromptsJudge(dir: string): string {
  const file = join(dir, JUDGE_BASELINE_FILE);
  if (!existsSync(file)) return '';
  const b = JSON.parse(readFileSync(file, 'utf8')) as JudgeBaseline;
  const a = b.accuracy;
  return ` The current
tiny prompts show that agent only the instruction, as in the paper; with them the same items give ${pct(a.all)}
(L1 ${pct(a.L1)}, L2 ${pct(a.L2)}, L3 ${pct(a.L3)}; ${JUDGE_BASELINE_FILE}, measured by scripts/tiny/judge-baseline.ts; the
meta-thinking agent then mostly writes arithmetic plans).`;
}

export function writeModelCard(dir: string, r: CardRecord): void {
  const rlSection = keptRlSection(dir);
  const misread = r.args.misread ?? 0;
  const misreadText =
    misread > 0
      ? `

The last stage (the shipped weights) trains on the same mixture except that ${(100 * misread).toFixed(0)}% of the multi-turn dialogues
get a *misread* plan (src/data/tiny-task/traces.ts, misreadLosses): every loss event ("gives away", "loses",
"sells") is planned as a gain ("Add n." instead of "Subtract n."), and the reasoning agent follows it faithfully to
a wrong answer. Among problems with a loss event the plans it sees are then mostly misread, some gold and some with
other planted mistakes, so the meta-thinking agent learns a systematic flaw: greedy decoding picks "Add" for a loss,
while sampling at temperature 1 still writes "Subtract" a good share of the time. These imperfect plans give RL
something to fix, made consistent on purpose: the fix is a plan decision the
meta-thinking agent can find in its own samples, which RL learns within minutes (see below), whereas the
stage-2 weights' errors are mostly the reasoning agent's arithmetic, which RL on this model improves only slowly.`
      : '';
  const s = r.args.shape;
  const levels = Object.entries(r.levels)
    .map(
      ([k, v]) =>
        `| L${k} | ${v.equations} | ≤ ${v.maxOperand} | ≤ ${v.maxValue} | ${pct(r.finalEval.accuracy[`L${k}`])} |`,
    )
    .join('\n');
  const stages: StageRecord[] = [...r.previousStages, r];
  const total = (k: 'tokensSeen' | 'targetTokensSeen' | 'trainSeconds') => stages.reduce((a, st) => a + st[k], 0);
  const text = `# tiny-rema

The embedded default model of ReMA Playground: a ${r.parameters.toLocaleString('en-US')}-parameter Llama-architecture
decoder that knows the tiny arithmetic task's ReMA multi-turn format (a meta-thinking agent plans and confirms with
[FINISH], a reasoning agent computes and boxes the answer), trained from scratch by this repository's own engine.
It starts below perfect on purpose, so that RL has something to improve.

## Architecture

\`LlamaForCausalLM\` (config.json): hidden ${s.hidden}, ${s.layers} layers, ${s.heads} attention heads / ${s.kvHeads} KV heads
(head dim ${s.hidden / s.heads}), SwiGLU intermediate ${s.intermediate}, RMSNorm eps 1e-5, RoPE theta 10000, context ${s.context},
untied LM head, vocabulary ${s.vocab}. Weights: model.safetensors, F32, Hugging Face names.

Tokenizer: a byte-pair-encoding tokenizer.json (printable ASCII + newline, ${s.vocab - 101} merges learned on the task's corpus; digits
are always single tokens) with \`<|endoftext|>\`, \`<|im_start|>\`, \`<|im_end|>\` and \`[FINISH]\` as added tokens, and a
ChatML chat template in tokenizer_config.json (as Qwen2.5, without the implicit default system prompt). It loads
through \`loadHfTokenizer\` like any Hugging Face model.

## Data

Seeded procedural problems (src/data/tiny-task): a start amount (or bags × items), then events (buys, gives away,
doubles, keeps half, buys bags of several more); exact integer answers. Train and held-out problems never share an
arithmetic chain (the split is a hash of the chain). The supervised mixture: ReMA multi-turn dialogues
(plan | computation, then "Confirm the answer. [FINISH]" | \\boxed{answer}), 15% of them with a plan that has one
planted mistake (the reasoning agent follows it and gets a wrong answer) and 10% with an empty plan; plus
${(100 * r.mixture.otherFormats).toFixed(0)}% single-turn / plan-then-solve / chain-of-thought chats and ${(100 * r.mixture.judge).toFixed(0)}% judge dialogues ([[A]] / [[B]]).
The loss covers assistant messages and their end-of-turn token only.${misreadText}

## Training

\`npm run pretrain-tiny\` (scripts/tiny/pretrain.ts): createEnginePolicy on the ${r.args.backend} backend, full fine-tuning,
AdamW (β 0.9/0.98, weight decay 0.1, grad clip 1), each stage with a linear warm-up and a cosine decay of the
learning rate to 10% over its scheduled steps; a batch is ${r.args.batch} chats.

| stage | seed | lr | misread share | steps run / scheduled | tokens seen | trained target tokens | training time | held-out greedy accuracy after the stage |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
${stages.map((st, i) => `| ${i + 1} | ${st.args.seed} | ${st.args.lr} | ${st.args.misread ?? 0} | ${st.args.steps} / ${st.args.scheduledSteps ?? st.args.steps} | ${(st.tokensSeen / 1e6).toFixed(2)}M | ${(st.targetTokensSeen / 1e6).toFixed(2)}M | ${(st.trainSeconds / 60).toFixed(1)} min | ${stageAccuracy(st)} |`).join('\n')}
| all | | | | ${stages.reduce((a, st) => a + st.args.steps, 0)} | ${(total('tokensSeen') / 1e6).toFixed(2)}M | ${(total('targetTokensSeen') / 1e6).toFixed(2)}M | ${(total('trainSeconds') / 60).toFixed(1)} min | |

Training time is wall-clock on this project's shared 2-core CPU machine (other jobs ran at the same time), data
generation and tokenisation included, evaluation excluded. Each later stage starts from the previous stage's
weights with fresh data (another seed) and a fresh schedule.

## Held-out accuracy (greedy, multi-turn ReMA protocol)

${r.finalEval.size} held-out problems, at most ${r.finalEval.caps.maxRounds} rounds and ${r.finalEval.caps.maxTokensPerTurn} tokens per turn; correct = the meta-thinking
agent emitted [FINISH] and the reasoning agent's last \\boxed{} equals the answer.

| level | equations | event operands | values | accuracy |
| --- | --- | --- | --- | --- |
${levels}
| all | | | | ${pct(r.finalEval.accuracy.all)} |

Episodes that finished with [FINISH]: ${(100 * r.finalEval.finished).toFixed(1)}%. The meta-thinking agent's first plan equals
the gold plan in ${r.finalEval.plans.exact} of ${r.finalEval.size} episodes (${r.finalEval.plans.exactAndCorrect} of those are solved) and is empty in
${r.finalEval.plans.empty}.

Judge task (the same protocol with the judge prompts; correct = the final [[A]] / [[B]] names the right candidate):
${pct(r.judgeEval.accuracy.all)} on ${r.judgeEval.size} held-out items (L1 ${pct(r.judgeEval.accuracy.L1)}, L2 ${pct(r.judgeEval.accuracy.L2)}, L3 ${pct(r.judgeEval.accuracy.L3)}) as recorded
in training, when the meta-thinking agent saw the whole question (instruction and both candidates).${currentPromptsJudge(dir)} Chance is 50%.

Regression sample (scripts/tiny/regression-sample.ts, checked by tests/models/tiny-model.test.ts): ${r.regression.correct}/${r.regression.size} correct.

${rlSection}## Regenerate

\`\`\`bash
npx tsx scripts/tiny/build-tokenizer.ts   # tokenizer.json, tokenizer_config.json
npm run pretrain-tiny                     # the stages above; writes config.json, model.safetensors,
                                          # generation_config.json, training-log.json and this card
/usr/bin/python3 scripts/onnx/export_hf_onnx.py public/models/tiny-rema   # onnx/model.onnx (below)
\`\`\`

The run is deterministic given its seeds and the backend variant (WebAssembly relaxed SIMD in Node 20 with
--experimental-wasm-relaxed-simd; the held-out numbers are measured on the plain-SIMD variant). training-log.json holds the loss curve and the evals.

\`onnx/model.onnx\` is the same weights as an ONNX graph in float32 with a KV cache, in the layout of the hub's
"onnx-community" repos (Optimum's input_ids / attention_mask / position_ids / past_key_values.{l}.key|value ->
logits / present.{l}.key|value). It lets a frozen agent run on onnxruntime (node, or web with the WebGPU / WASM
execution providers) offline: \`npx rema train --frozen-agent reasoning --frozen-model public/models/tiny-rema\`,
\`npx rema eval --onnx public/models/tiny-rema\`. Re-export it whenever model.safetensors changes
(tests/rl/frozen-agent.test.ts fails on a stale file).
`;
  writeFileSync(join(dir, 'README.md'), text);
}
