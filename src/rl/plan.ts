// The planner: before anything is downloaded, what a config costs on a device (parameters, bytes by category, the
// peak), whether it fits, and when it does not the nearest config that does. The model's shape comes from the
// offline catalog (src/data/models) or a config.json the caller read; the workload shape of one step (decode
// batch, prompt and message lengths, gradient chunk) follows from the config the way the trainer and EnginePolicy
// run it; the bytes are engine/plan/memory.ts, which matches the engine's allocation ledger.
import type { BackendKind } from '../engine/backend.ts';
import type { ModelConfig } from '../engine/model/config.ts';
import { parseHfConfig } from '../engine/io/hf-config.ts';
import { planMemory, type MemoryBytes, type MemoryShape, type WeightDtype } from '../engine/plan/memory.ts';
import { findCatalogModel } from '../data/models/catalog.ts';
import { validateConfig, type ExperimentConfig } from './config.ts';
import { adapterNames, keepKvBytesFor } from './policy-setup.ts';
import type { Problem } from '../data/problem.ts';
import type { ChatMessage, ChatTokenizer } from '../data/tokenizer.ts';
import { runPrompts } from './prompts/json-actions.ts';
import { followersFor, isTwoAgent } from './train/episodes.ts';
import { checkBindings, type BindingCheck } from './plan-bindings.ts';
import { DEFAULT_BINDING_BYTES } from '../engine/plan/bindings.ts';

/** EnginePolicy's default rows per gradient chunk (engine-policy.ts); the sequences decoded together are
 *  config.decodeBatch. */
const MAX_BATCH_TOKENS = 4096;
/** Tokens of a chat before its first message: system prompt, question, template markup, when they cannot be
 *  counted with the model's tokenizer (promptBaseTokens): an estimate for MATH questions with the code / paper
 *  prompts through a BPE vocabulary of tens of thousands of tokens (Qwen2.5, SmolLM2, Llama 3: a few hundred);
 *  the tiny task's are far shorter. A byte-level vocabulary (about 2.5x the tokens) needs the measured count or
 *  config.maxPromptTokens, which always caps the estimate. */
const PROMPT_BASE_TOKENS = 256;
const TINY_PROMPT_BASE_TOKENS = 64;
/** WasmBackend's default cap: WebAssembly's 4 GiB memory less 256 MiB of kernel scratch headroom (backends/wasm.ts). */
export const WASM_LIMIT_BYTES = 4 * 1024 ** 3 - 256 * 1024 ** 2;
/** CpuBackend's default cap (backends/cpu.ts). */
const CPU_LIMIT_BYTES = 8 * 1024 ** 3;

export interface PlanOptions {
  backend: BackendKind;
  /** bytes the device allows; default: the WASM / CPU backend's cap, unknown for WebGPU (the page reads it from the adapter) */
  memoryBytes?: number;
  /** storage of the frozen base weights; default f32 (what EnginePolicy uses unless told otherwise) */
  weightDtype?: WeightDtype;
  /** tokens of the longest first prompt, counted with the model's tokenizer (promptBaseTokens); default: an
   *  estimate (PROMPT_BASE_TOKENS) */
  promptBaseTokens?: number;
  /** WebGPU's maxStorageBufferBindingSize to check whole-bound tensors against; default the spec's 128 MiB */
  bindingBytes?: number;
  /** EnginePolicyOptions.keepKvBytes (keys and values kept between a multi-turn rollout's calls, in host memory);
   *  default policy-setup.ts keepKvBytesFor */
  keepKvBytes?: number;
}

export interface PlanSuggestion {
  /** config fields to change (rema plan / train: --set key=value) */
  set: Record<string, unknown>;
  /** base weight storage to use instead, when the suggestion needs it */
  weightDtype?: WeightDtype;
  /** the planned peak with the change */
  total: number;
  /** the change in words, e.g. "--set groupSize=4 --set maxTokensPerTurn=128" */
  flags: string;
}

export interface Plan {
  model: string;
  parameters: number;
  weightDtype: WeightDtype;
  /** storage of the KV cache counted under kv_cache: f16 (2 bytes per element) with f16 weights on WebGPU */
  kvCacheDtype: 'f32' | 'f16';
  bytes: MemoryBytes;
  /** bytes the device allows, or null when unknown (WebGPU in the CLI without --memory) */
  limit: number | null;
  /** null when the limit is unknown */
  fits: boolean | null;
  /** the nearest config that fits, when this one does not (null when it fits, when the limit is unknown, or when
   *  nothing does; then `note` says why) */
  suggestion: PlanSuggestion | null;
  /** the workload the bytes are for */
  shape: MemoryShape;
  /** host memory of one step's training rows (rollouts x trained agents x row tokens), beside the device's bytes */
  hostBytes: number;
  /** WebGPU: the largest tensor a kernel binds whole against maxStorageBufferBindingSize, and the change that makes
   *  every such tensor fit when one does not (null on the other backends) */
  bindings: BindingCheck | null;
  note?: string;
}

/** Host bytes per token of a step's training rows: the token id, old and reference log-probs, advantage and loss
 *  coefficient (4 bytes each), and about as much again for the rollout record (text, per-token view). */
const HOST_BYTES_PER_ROW_TOKEN = 40;
/** Host memory a step's rows may take before a plan says the config does not fit (a laptop's, a page's tab). */
export const HOST_LIMIT_BYTES = 16 * 1024 ** 3;

/** Reasoning answers per plan at the largest step: metaFollowers where a single-turn meta agent trains (followersFor). */
function followersOf(config: ExperimentConfig): number {
  return config.frozenAgent !== 'meta' ? followersFor(config, ['meta']) : 1;
}

/** Episodes of the largest step: problemsPerStep x groupSize plans, each answered metaFollowers times. */
export function rolloutsPerStep(config: ExperimentConfig): number {
  return config.problemsPerStep * config.groupSize * followersOf(config);
}

/** Training rows of the largest step: one per episode and trained agent, but one meta row per plan (a shared
 *  single-turn step trains the meta agent once per plan and the reasoning agent once per answer). */
export function rowsPerStep(config: ExperimentConfig): number {
  const plans = config.problemsPerStep * config.groupSize;
  const twoAgentRows = config.paramMode === 'shared' && (config.mode === 'multi-turn' || config.mode === 'single-turn');
  return twoAgentRows
    ? plans + rolloutsPerStep(config)
    : config.paramMode === 'separate'
      ? plans
      : rolloutsPerStep(config);
}

/** Host bytes of one step's training rows: they grow with the step's rows, whatever decodeBatch is. */
export function stepHostBytes(config: ExperimentConfig, shape: MemoryShape): number {
  return rowsPerStep(config) * shape.gradient.tokens * HOST_BYTES_PER_ROW_TOKEN;
}

/** The model shape a config names, without downloading: a catalog entry, else `readConfigJson` (a local folder's
 *  config.json), else an error naming the model. */
export function modelConfigFor(
  config: ExperimentConfig,
  readConfigJson?: (model: string) => unknown,
): { config: ModelConfig; name: string } {
  const entry = config.modelSource === 'hub' ? findCatalogModel(config.model) : null;
  if (entry) return { config: parseHfConfig(entry.config, `catalog ${entry.name}`), name: entry.repo };
  const json = readConfigJson?.(config.model);
  if (json === undefined || json === null) {
    throw new Error(
      `plan: "${config.model}" is not in the model catalog and its config.json is not available offline ` +
        '(catalog: qwen2.5-0.5b-instruct, qwen2.5-1.5b-instruct, qwen2.5-math-1.5b-instruct, smollm2-135m/360m/1.7b-instruct, llama-3.2-1b-instruct)',
    );
  }
  return { config: parseHfConfig(json, `${config.model}/config.json`), name: config.model };
}

/** Messages already in the chat when the last message of an episode is generated, and in a whole training row. */
function messagesBefore(config: ExperimentConfig): { lastPrompt: number; row: number; trained: number } {
  if (config.mode === 'multi-turn')
    return { lastPrompt: 2 * config.maxTurns - 1, row: 2 * config.maxTurns, trained: config.maxTurns };
  if (config.mode === 'single-turn') return { lastPrompt: 1, row: 2, trained: 1 };
  return { lastPrompt: 0, row: 1, trained: 1 };
}

/**
 * Tokens of the longest chat before its first message (system prompt, the question, template markup, the
 * generation prompt) over `problems`, rendered as the trainer renders them (protocol/episode.ts chatFor) and
 * counted with the model's tokenizer: for each agent that starts a chat, with an empty plan for the reasoning agent
 * (the plan is counted as a message). 0 when there are no problems.
 */
export function promptBaseTokens(
  config: ExperimentConfig,
  tokenizer: ChatTokenizer,
  problems: readonly Problem[],
): number {
  let most = 0;
  const count = (chat: ChatMessage[]) =>
    tokenizer.encode(tokenizer.applyChatTemplate(chat, { addGenerationPrompt: true })).length;
  for (const p of problems) {
    const prompts = runPrompts(config, p.task);
    const q = p.question;
    if (isTwoAgent(config)) {
      most = Math.max(
        most,
        count([
          { role: 'system', content: prompts.metaSystem },
          { role: 'user', content: prompts.metaUser(q, p) },
        ]),
        count([
          { role: 'system', content: prompts.reasoningSystem },
          { role: 'user', content: prompts.reasoningUser(q, '', p) },
        ]),
      );
    } else {
      most = Math.max(
        most,
        count([
          { role: 'system', content: prompts.singleSystem },
          { role: 'user', content: prompts.singleUser(q, p) },
        ]),
      );
    }
  }
  return most;
}

/** Held-out problems one evaluation decodes: evalSize, or (0 = the whole set, of unknown size here) a full batch. */
function evalProblems(config: ExperimentConfig): number {
  return config.evalSize > 0 ? config.evalSize : config.decodeBatch;
}

/** One step's workload as EnginePolicy runs it (the largest decode call of the rollout and of the held-out
 *  evaluation, which the trainer runs on the last step and every evalEvery steps, and the largest gradient chunk).
 *  `measuredBase`: promptBaseTokens when the tokenizer is at hand. */
export function stepShape(
  config: ExperimentConfig,
  model: ModelConfig,
  weightDtype: WeightDtype,
  measuredBase?: number,
): MemoryShape {
  const adapters = adapterNames(config).length;
  const context = model.maxPositionEmbeddings;
  const base =
    measuredBase !== undefined && measuredBase > 0
      ? measuredBase
      : config.prompts === 'tiny'
        ? TINY_PROMPT_BASE_TOKENS
        : PROMPT_BASE_TOKENS;
  const m = messagesBefore(config);
  const N = config.maxTokensPerTurn;
  // the last message's prompt: every earlier message at full length, up to the prompt cap and the context
  const promptTokens = Math.max(1, Math.min(config.maxPromptTokens, base + m.lastPrompt * N, context - 1));
  const newTokens = Math.max(1, Math.min(N, context - promptTokens));
  const rollouts = rolloutsPerStep(config);
  const sequences = Math.min(config.decodeBatch, rollouts);
  // the evaluation: greedy, one episode per held-out problem, every prompt distinct, decoded decodeBatch at once
  const evalSequences = Math.min(config.decodeBatch, evalProblems(config));
  // rows: one per trained agent and episode (shared multi-turn / single-turn: both agents' conversations)
  const rows = rowsPerStep(config);
  const rowsPerMiniBatch = Math.ceil(rows / Math.min(config.miniBatches, rows));
  const rowTokens = Math.max(1, Math.min(config.maxPromptTokens + N, base + m.row * N, context));
  const chunkRows = Math.max(1, Math.min(rowsPerMiniBatch, Math.floor(MAX_BATCH_TOKENS / rowTokens)));
  const training: MemoryShape['training'] =
    config.finetune === 'full'
      ? { mode: 'full', adapters }
      : { mode: 'lora', adapters, rank: config.loraRank, targets: config.loraTargets };
  // multi-turn: an agent's prompt after its first extends its previous one (kept by the policy) by its last token,
  // the other agent's message and their markup: at most two messages behind; prompts prefilled whole are the first
  // ones (the reasoning agent's holds the first plan)
  const behind =
    config.mode === 'multi-turn' && config.maxTurns >= 2
      ? { behind: { tokens: Math.min(promptTokens, 2 * N), wholePromptTokens: Math.min(promptTokens, base + N) } }
      : {};
  return {
    weightDtype,
    training,
    decode: { sequences, uniquePrompts: sequences, promptTokens, newTokens, ...behind },
    evalDecode: { sequences: evalSequences, uniquePrompts: evalSequences, promptTokens, newTokens, ...behind },
    activationBudgetBytes: config.activationBudgetMiB * 2 ** 20,
    gradient: {
      sequences: chunkRows,
      tokens: rowTokens,
      selected: chunkRows * Math.min(rowTokens - 1, m.trained * (N + 1)),
    },
  };
}

/** What the backend changes in a step's allocations: WASM keeps vectors in f32 beside half matrices; the LoRA merge
 *  rule depends on the backend kind and the total the backend enforces (its default cap; WebGPU enforces none). */
function backendShape(shape: MemoryShape, backend: BackendKind, keepKvBytes?: number): MemoryShape {
  const cap = backend === 'webgpu' ? null : defaultLimit(backend);
  return {
    ...shape,
    halfVectors: backend !== 'wasm',
    backend,
    ...(cap !== null ? { deviceBytes: cap } : {}),
    ...(keepKvBytes !== undefined ? { keepKvBytes } : {}),
  };
}

function defaultLimit(backend: BackendKind): number | null {
  if (backend === 'wasm') return WASM_LIMIT_BYTES;
  if (backend === 'cpu') return CPU_LIMIT_BYTES;
  return null;
}

/** Base weight storage each backend can hold: the CPU reference keeps f32 only. */
function dtypesFor(backend: BackendKind): WeightDtype[] {
  return backend === 'cpu' ? ['f32'] : ['f32', 'f16', 'bf16'];
}

/** Halvings of `from` down to `min`, each with its number of halvings. */
function halvings(from: number, min: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let v = Math.floor(from / 2), k = 1; v >= min; v = Math.floor(v / 2), k++) {
    out.push([v, k]);
    if (v === min) break;
  }
  return out;
}

interface Change {
  set: Record<string, unknown>;
  weightDtype?: WeightDtype;
  /** how far from the config: 1 per halving of a size (a half for decodeBatch), 1 for f16 weights or fewer LoRA targets */
  cost: number;
}

/** Single changes of a config: fewer sequences decoded at once (the same rollouts, only slower: half the cost of
 *  any other change per halving), f16 weights, a smaller group, shorter messages, fewer problems per step, fewer
 *  LoRA targets, a shorter prompt cap, fewer held-out problems, fewer rounds. */
function candidateChanges(c: ExperimentConfig, dtype: WeightDtype, backend: BackendKind): Change[] {
  const out: Change[] = [];
  const decoded = Math.min(c.decodeBatch, Math.max(rolloutsPerStep(c), evalProblems(c)));
  for (const [b, k] of halvings(decoded, 1)) out.push({ set: { decodeBatch: b }, cost: k / 2 });
  if (dtype === 'f32' && c.finetune === 'lora' && dtypesFor(backend).includes('f16'))
    out.push({ set: {}, weightDtype: 'f16', cost: 1 });
  for (const [g, k] of halvings(c.groupSize, 2)) out.push({ set: { groupSize: g }, cost: k });
  for (const [n, k] of halvings(c.maxTokensPerTurn, 32)) out.push({ set: { maxTokensPerTurn: n }, cost: k });
  for (const [p, k] of halvings(c.problemsPerStep, 1)) out.push({ set: { problemsPerStep: p }, cost: k });
  if (c.finetune === 'lora' && c.loraTargets.length > 2)
    out.push({ set: { loraTargets: ['q_proj', 'v_proj'] }, cost: 1 });
  for (const [p, k] of halvings(c.maxPromptTokens, 256)) out.push({ set: { maxPromptTokens: p }, cost: k });
  for (const [e, k] of halvings(evalProblems(c), 8)) out.push({ set: { evalSize: e }, cost: k });
  if (c.mode === 'multi-turn')
    for (const [t, k] of halvings(c.maxTurns, 1)) out.push({ set: { maxTurns: t }, cost: k });
  return out;
}

function flagsOf(set: Record<string, unknown>, weightDtype?: WeightDtype): string {
  const parts = Object.entries(set).map(([k, v]) => `--set ${k}=${JSON.stringify(v)}`);
  if (weightDtype) parts.push(`--weight-dtype ${weightDtype}`);
  return parts.join(' ');
}

/**
 * The nearest config that fits `limit`: of the single changes that fit, the one of least cost (then the largest
 * peak, i.e. the least cut); when none fits alone, the change that saves the most bytes per unit of cost is kept
 * and the search goes on from there (at most 8 rounds).
 */
function suggest(
  config: ExperimentConfig,
  model: ModelConfig,
  dtype: WeightDtype,
  backend: BackendKind,
  limit: number,
  base?: number,
): PlanSuggestion | null {
  let set: Record<string, unknown> = {};
  let weightDtype = dtype;
  let current = config;
  let currentTotal = planMemory(model, backendShape(stepShape(config, model, dtype, base), backend)).bytes.total;
  for (let round = 0; round < 8; round++) {
    const tried: Array<Change & { total: number; config: ExperimentConfig }> = [];
    for (const change of candidateChanges(current, weightDtype, backend)) {
      let c: ExperimentConfig;
      try {
        c = validateConfig(change.set, 'plan suggestion', current);
      } catch {
        continue; // a change the config does not allow (e.g. fewer rollouts than mini-batches)
      }
      const d = change.weightDtype ?? weightDtype;
      tried.push({
        ...change,
        config: c,
        total: planMemory(model, backendShape(stepShape(c, model, d, base), backend)).bytes.total,
      });
    }
    const fitting = tried.filter((t) => t.total <= limit).toSorted((a, b) => a.cost - b.cost || b.total - a.total);
    if (fitting.length > 0) {
      const f = fitting[0];
      const s = { ...set, ...f.set };
      const d = f.weightDtype ?? weightDtype;
      return {
        set: s,
        ...(d !== dtype ? { weightDtype: d } : {}),
        total: f.total,
        flags: flagsOf(s, d !== dtype ? d : undefined),
      };
    }
    const best = tried.toSorted((a, b) => (currentTotal - b.total) / b.cost - (currentTotal - a.total) / a.cost)[0];
    if (!best || best.total >= currentTotal) return null;
    set = { ...set, ...best.set };
    weightDtype = best.weightDtype ?? weightDtype;
    current = best.config;
    currentTotal = best.total;
  }
  return null;
}

export function planConfig(
  config: ExperimentConfig,
  model: { config: ModelConfig; name: string },
  options: PlanOptions,
): Plan {
  const weightDtype = options.weightDtype ?? 'f32';
  if (!dtypesFor(options.backend).includes(weightDtype))
    throw new Error(`plan: the ${options.backend} backend stores weights as f32 only, not ${weightDtype}`);
  if (config.finetune === 'full' && weightDtype !== 'f32')
    throw new Error(
      `plan: full fine-tuning trains every weight in f32; --weight-dtype ${weightDtype} needs finetune "lora"`,
    );
  const shape = backendShape(
    stepShape(config, model.config, weightDtype, options.promptBaseTokens),
    options.backend,
    options.keepKvBytes ?? keepKvBytesFor(config, options.backend),
  );
  const mem = planMemory(model.config, shape);
  const limit = options.memoryBytes ?? defaultLimit(options.backend);
  const hostBytes = stepHostBytes(config, shape);
  const hostFits = hostBytes <= HOST_LIMIT_BYTES;
  const fits = limit === null ? (hostFits ? null : false) : mem.bytes.total <= limit && hostFits;
  const plan: Plan = {
    model: model.name,
    parameters: mem.parameters,
    weightDtype,
    kvCacheDtype: mem.kvCacheDtype,
    bytes: mem.bytes,
    limit,
    fits,
    suggestion: null,
    shape,
    hostBytes,
    bindings:
      options.backend === 'webgpu'
        ? checkBindings(
            config,
            model.config,
            (c) => stepShape(c, model.config, weightDtype, options.promptBaseTokens),
            options.bindingBytes ?? DEFAULT_BINDING_BYTES,
          )
        : null,
  };
  if (!hostFits)
    plan.note = `one step's training rows take ${hostBytes} bytes of host memory (${config.problemsPerStep} problems x ${rolloutsPerStep(config) / config.problemsPerStep} rollouts), over ${HOST_LIMIT_BYTES}: lower problemsPerStep or groupSize`;
  else if (limit === null) plan.note = "the WebGPU adapter's memory is only known in the page: pass --memory BYTES";
  else if (!fits) {
    plan.suggestion = suggest(config, model.config, weightDtype, options.backend, limit, options.promptBaseTokens);
    if (!plan.suggestion)
      plan.note = `no nearby config fits ${limit} bytes: the weights alone take ${mem.bytes.weights} bytes; pick a smaller model`;
  }
  return plan;
}
