// The config fields of the rollout protocol (which MAMRP variant, turn and token caps, rewards of unfinished
// episodes) and of the agents (shared or separate parameters, Algorithm 1's phases and filter, a frozen agent).
import type { FieldDef } from './field.ts';

export const PROTOCOL_FIELDS = {
  mode: {
    kind: 'enum',
    values: ['multi-turn', 'single-turn', 'vrp', 'vrp-rl', 'mrp-rl'],
    default: 'multi-turn',
    doc: 'Rollout protocol. multi-turn: ReMA multi-turn MAMRP, MTA and RA alternate until the MTA says [FINISH] (paper §3.2.2, released code). single-turn: one plan then one solution (paper §3.2.1, Table 1). vrp: plain CoT, no RL (Table 1 baseline). vrp-rl: RL on the CoT prompt. mrp-rl: one agent writes plan + solution (paper Eq. 3-4).',
    ui: { group: 'Protocol', label: 'mode' },
  },
  prompts: {
    kind: 'enum',
    values: ['paper', 'code', 'tiny'],
    default: 'tiny',
    doc: 'Prompt texts. paper: appendix G verbatim; code: the released prompt files (identical for multi-turn); tiny: the short prompts the embedded tiny model was trained with (use this with tiny-rema).',
    ui: { group: 'Protocol', label: 'prompt set' },
  },
  maxTurns: {
    kind: 'int',
    min: 1,
    max: 1000,
    default: 3,
    doc: 'Maximum rounds (one MTA + one RA message each). Code: 30 when training, 10 in the eval script. Reaching it ends the episode with reach_max_turn.',
    details: 'Tiny-task dialogues are two rounds of messages of at most 40 tokens, hence the default 3.',
    ui: { group: 'Protocol', label: 'max turns', range: [1, 30] },
  },
  maxTokensPerTurn: {
    kind: 'int',
    min: 1,
    max: 131_072,
    default: 64,
    doc: 'Token cap per generated message (data.max_response_length per turn). Code: 512; the paper ablates 256 vs 1024 (Fig. 6).',
    ui: { group: 'Protocol', label: 'tokens per turn', range: [4, 4096] },
  },
  maxPromptTokens: {
    kind: 'int',
    min: 1,
    max: 1_048_576,
    default: 240,
    doc: "Cap on each agent's rendered chat (prompt) per turn; a longer one ends the episode with completion_token_exceeded. Code: 4096.",
    details:
      "The default leaves room in the tiny model's 256-token context (a message is also cut where the context ends).",
    ui: { group: 'Protocol', label: 'prompt token cap', advanced: true, range: [16, 32768] },
  },
  stopWhenTruncated: {
    kind: 'bool',
    default: true,
    doc: 'End the episode when a message hits the per-turn cap (finish reason stop_when_truncated). Code: on.',
    ui: { group: 'Protocol', label: 'stop when truncated', advanced: true },
  },
  maskUnfinishedReward: {
    kind: 'bool',
    default: true,
    doc: 'Reward 0 unless the MTA said [FINISH] and nothing was truncated (code mask_unfinished_reward=True, paper App. D.2).',
    ui: { group: 'Protocol', label: 'mask unfinished reward' },
  },
  overflowAnswer: {
    kind: 'enum',
    values: ['empty', 'previous'],
    default: 'empty',
    legacy: 'previous',
    doc: 'What an episode cut short (reasoning chat over the prompt cap, truncated meta message) answers. empty: an empty dummy reasoning message ends it and "" is graded (released code); previous: the last real reasoning answer is graded. Matters only without the unfinished-reward mask.',
    details:
      'empty follows the ReMA code (vllm_rollout_spmd._run_multi_turn_conversation and _update_history_and_check_finish): when the reasoning agent\'s chat overflows maxPromptTokens, or the meta agent\'s message is truncated, an empty dummy reasoning message ends the history and the final answer graded is "" (the code grades history[-1]). previous: no dummy after a reasoning overflow and the last real reasoning message is graded. Only visible with maskUnfinishedReward = false (else such episodes earn 0 either way) and in the rollout records.',
    ui: { group: 'Protocol', label: 'overflow answer', advanced: true },
  },
  endTokenTarget: {
    kind: 'enum',
    values: ['eos', 'template'],
    default: 'eos',
    legacy: 'template',
    doc: "Target trained after a message that ended normally. eos: the tokenizer's eos_token (released code encode_conversation); template: the chat template's closing token (e.g. <|im_end|>).",
    details:
      'They differ for base models such as Qwen2.5-7B (eos <|endoftext|>, template <|im_end|>); they are equal for instruct models and the embedded model.',
    ui: { group: 'Protocol', label: 'end token trained', advanced: true },
  },
  singleTurnReward: {
    kind: 'enum',
    values: ['base', 'binary', 'consistency'],
    default: 'base',
    doc: "single-turn / vrp-rl / mrp-rl reward. base: paper App. C.2 (+1 correct, -0.5 wrong but boxed, -1 no box; the MTA gets -1 if it leaks \\boxed). binary: 1 or 0. consistency: App. C.2's alternative for the MTA (share of its reasoning samples giving the most frequent answer; the paper saw it invite answer leakage).",
    details:
      'consistency gives the meta agent 0 when the most frequent answer is no answer and -1 for a leak; the reasoning agent keeps the base reward. It is taken over the metaFollowers answers to each plan, so single-turn runs whose meta agent trains need metaFollowers >= 2 (one answer always agrees with itself).',
    ui: { group: 'Protocol', label: 'single-turn reward', advanced: true },
  },
} as const satisfies Record<string, FieldDef>;

export const AGENT_FIELDS = {
  paramMode: {
    kind: 'enum',
    values: ['shared', 'separate'],
    default: 'shared',
    doc: 'shared: one set of trainable weights, roles differ by system prompt (code default, paper Fig. 6 "Turn-Ratio"). separate: one adapter per agent, trained in alternation (paper ablation "separate params").',
    ui: { group: 'Agents', label: 'parameters' },
  },
  switchEvery: {
    kind: 'int',
    min: 1,
    default: 10,
    doc: 'Separate mode: the trained agent switches every this many steps (code switch_agent.freq = 10).',
    ui: { group: 'Agents', label: 'switch agent every', range: [1, 1000] },
  },
  startAgent: {
    kind: 'enum',
    values: ['meta', 'reasoning'],
    default: 'meta',
    doc: 'Separate mode: which agent trains first (code start_agent = meta_thinking).',
    ui: { group: 'Agents', label: 'first trained agent', advanced: true },
  },
  frozenAgent: {
    kind: 'enum',
    values: ['none', 'meta', 'reasoning'],
    default: 'none',
    legacy: 'none',
    doc: 'An agent that never trains and runs on an external ONNX model (paper Algorithm 1 freezes one agent while the other trains; here for the whole run). none: both agents are the engine model. Needs multi-turn or single-turn.',
    details:
      "The frozen model is given to the trainer (TrainerOptions.frozen: the CLI's --frozen-agent and --frozen-model, the page's ONNX picker) and renders with its own tokenizer and chat template. Its tokens never enter a training row, the loss, the old / reference log-probs or an optimiser step. One agent stays frozen for the whole run, so Algorithm 1's switch never happens; in single-turn separate mode the frozen partner decodes greedily, as in Algorithm 1.",
    ui: { group: 'Agents', label: 'frozen agent', advanced: true },
  },
  filterGroups: {
    kind: 'bool',
    default: false,
    doc: 'Single-turn separate mode (paper Algorithm 1): keep only problems whose success rate lies in [filterEpsMin, filterEpsMax].',
    details:
      "With phaseEpochs > 0 the rate comes from each phase's probe (probeSamples); with 0, from the step's own training samples.",
    ui: { group: 'Agents', label: 'filter groups', advanced: true },
  },
  filterEpsMin: {
    kind: 'number',
    min: 0,
    max: 1,
    default: 0.2,
    doc: 'Lower success-rate bound of the filter. Paper (MATH): 0.2.',
    ui: { group: 'Agents', label: 'filter eps min', advanced: true, step: 0.05 },
  },
  filterEpsMax: {
    kind: 'number',
    min: 0,
    max: 1,
    default: 0.8,
    doc: 'Upper success-rate bound of the filter. Paper (MATH): 0.8.',
    ui: { group: 'Agents', label: 'filter eps max', advanced: true, step: 0.05 },
  },
  phaseEpochs: {
    kind: 'int',
    min: 0,
    default: 0,
    legacy: 0,
    doc: 'Single-turn, separate parameters: Algorithm 1 as written (paper §3.2.1, App. D.1 "#Training Episode", paper: 4): each phase trains one agent with its partner frozen for this many passes over the problems its probe kept. 0: switch every switchEvery steps, filtering the step\'s own samples.',
    details:
      "Phases alternate, startAgent first. At a phase's start its dataset is built once: the success-rate probe (probeSamples) keeps the problems in the filter's window, and in the reasoning agent's phase the frozen meta agent then writes planSamples plans per kept problem (one greedy plan with 0), so that phase's dataset holds kept · planSamples (question, plan) prompts. The phase makes phaseEpochs passes over its dataset, each step taking problemsPerStep prompts and sampling fresh answers (ceil(prompts / problemsPerStep) · phaseEpochs steps). updateIterations ends the run after that many pairs of phases; `steps` bounds it too.",
    ui: { group: 'Agents', label: 'phase passes', advanced: true, range: [0, 100] },
  },
  probeSamples: {
    kind: 'int',
    min: 1,
    default: 10,
    legacy: 10,
    doc: "Samples per problem in a phase's success-rate probe, not trained on (Algorithm 1: 10). Reasoning phase: one greedy plan answered this many times; meta phase: this many plans answered greedily.",
    details: 'The reasoning phase answers at the rollout temperature. Used when phaseEpochs > 0 and filterGroups.',
    ui: { group: 'Agents', label: 'probe samples', advanced: true, range: [1, 100] },
  },
  planSamples: {
    kind: 'int',
    min: 0,
    default: 0,
    legacy: 0,
    doc: "Reasoning agent's training in single-turn separate mode: the frozen meta agent samples this many plans per problem at the rollout temperature (paper App. D.1: 4 at T = 1), each answered groupSize times (a GRPO group per plan); 0 = one greedy plan.",
    details:
      "With phaseEpochs > 0 the plans are written once per reasoning phase, when it starts (Algorithm 1's D_l), and each (question, plan) pair counts as one of the step's problemsPerStep prompts. Without phases every step samples planSamples plans for each of its problemsPerStep questions.",
    ui: { group: 'Agents', label: 'plans per problem', advanced: true, range: [0, 64] },
  },
  metaActions: {
    kind: 'enum',
    values: ['off', 'json'],
    default: 'off',
    legacy: 'off',
    doc: 'json: the meta-thinking agent answers {"action": "DECOMPOSE" | "REWRITE" | "EMPTY", "output": "..."}, enforced by a grammar mask in the sampler, and the reasoning agent executes the action (paper Sec. 4.2.2, App. G.1.1); metrics action_* record the choices. Single-turn, math tasks.',
    details:
      "The meta agent's turn is decoded under the token mask of src/rl/protocol/json-actions (exact form: one space after each colon and the comma, JSON string escapes, the end-of-turn token only after the closing brace; the answer always completes within maxTokensPerTurn). DECOMPOSE / REWRITE: the reasoning agent gets the question with the output as its instruction; EMPTY: the question alone. Trained log-probs are unmasked, as verl / OpenRLHF re-score vLLM guided-decoding rollouts.",
    ui: { group: 'Protocol', label: 'meta-actions (JSON)', advanced: true },
  },
  metaFollowers: {
    kind: 'int',
    min: 1,
    max: 64,
    default: 1,
    legacy: 1,
    doc: "Single-turn, when the meta-thinking agent trains: reasoning answers sampled per plan (App. C.2: the meta agent earns the mean correctness of its plan's reasoning samples, or their agreement with the consistency reward). 1 = one answer per plan (greedy in separate mode). The consistency reward needs 2 or more.",
    details:
      'With k > 1 each of the groupSize plans of a problem is answered k times at the rollout temperature (groupSize · k episodes); the meta agent trains one row per plan and its reward averages the k answers (base, binary) or takes their agreement (consistency), while the reasoning agent, where it trains, has a row per answer. Steps that train only the reasoning agent are unchanged.',
    ui: { group: 'Agents', label: 'answers per plan (meta)', advanced: true, range: [1, 16] },
  },
  updateIterations: {
    kind: 'int',
    min: 0,
    default: 0,
    legacy: 0,
    doc: 'Algorithm 1 (phaseEpochs > 0): end the run after this many update iterations, each one phase of each agent (paper App. D.1 "#Update Iteration": 10 for Qwen2.5-7B, 3 for the Llama models). 0 = only `steps` ends the run.',
    details:
      "A phase's length follows from its probe, so the step count of an iteration is known only as it runs; the run ends at whichever comes first, updateIterations or `steps`.",
    ui: { group: 'Agents', label: 'update iterations', advanced: true, range: [0, 100] },
  },
} as const satisfies Record<string, FieldDef>;
