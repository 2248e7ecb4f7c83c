// `rema plan`: what a config costs before anything is downloaded (src/rl/plan.ts): parameters, bytes by
// category, whether it fits the backend's memory (--memory, or the WASM backend's 4 GiB), and the nearest config
// that fits when it does not. The model's config.json comes from the offline catalog, an embedded or local
// folder, or a hub repo already in the cache; nothing is fetched. When the model's tokenizer is on disk too, the
// prompts are counted with it over the config's problems (a byte-level vocabulary counts far more tokens than the
// planner's estimate); else the estimate stands. On WebGPU it also checks the tensors kernels bind whole against
// maxStorageBufferBindingSize (--binding-limit, default the spec's 128 MiB) and says what to change.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { formatBytes, parseBytes } from '../engine/io/model-size.ts';
import type { WeightDtype } from '../engine/plan/memory.ts';
import type { ExperimentConfig } from '../rl/config.ts';
import { findCatalogModel } from '../data/models/catalog.ts';
import type { BackendKind } from '../engine/backend.ts';
import { modelConfigFor, planConfig, promptBaseTokens, type Plan } from '../rl/plan.ts';
import { loadHfTokenizer } from '../data/hf-tokenizer.ts';
import type { FileSource } from '../util/file-source.ts';
import { directoryFileSource } from './fs-source.ts';
import { openModelSource } from './hub.ts';
import { loadConfigProblems, REPO_ROOT } from './setup.ts';
import { readTextSync } from './read-text.ts';

export const WEIGHT_DTYPES: readonly WeightDtype[] = ['f32', 'f16', 'bf16'];

/** A byte-size flag ("4294967296", "4GiB", "512 MiB", "8GB"); anything else is refused naming the flag. */
export function bytesFlag(flag: string, text: string): number {
  const bytes = parseBytes(text);
  if (bytes === null)
    throw new Error(`${flag}: "${text}" is not a positive number of bytes (e.g. 4294967296, 4GiB, 512MiB)`);
  return bytes;
}

function parseJsonFile(path: string): unknown {
  try {
    return JSON.parse(readTextSync(path)) as unknown;
  } catch (e) {
    throw new Error(`${path}: cannot read the model's config.json (${(e as Error).message})`, { cause: e });
  }
}

/** config.json of the config's model when it is on disk: an embedded or local folder, or the hub cache. */
async function configJsonOnDisk(config: ExperimentConfig): Promise<unknown> {
  if (config.modelSource === 'embedded') {
    const path = resolve(REPO_ROOT, 'public/models', config.model, 'config.json');
    return existsSync(path) ? parseJsonFile(path) : undefined;
  }
  if (config.modelSource === 'local') {
    const path = join(config.model, 'config.json');
    return existsSync(path) ? parseJsonFile(path) : undefined;
  }
  if (findCatalogModel(config.model)) return undefined;
  try {
    const bytes = await openModelSource(config.model, { offline: true }).read('config.json');
    return bytes ? (JSON.parse(new TextDecoder().decode(bytes)) as unknown) : undefined;
  } catch {
    return undefined;
  }
}

/** The model's files when they are on disk (embedded or local folder, or the hub cache offline), else null. */
function sourceOnDisk(config: ExperimentConfig): FileSource | null {
  if (config.modelSource === 'embedded') {
    const dir = resolve(REPO_ROOT, 'public/models', config.model);
    return existsSync(dir) ? directoryFileSource(dir, `public/models/${config.model}`) : null;
  }
  if (config.modelSource === 'local') return existsSync(config.model) ? directoryFileSource(config.model) : null;
  try {
    return openModelSource(config.model, { offline: true });
  } catch {
    return null;
  }
}

/** Tokens of the config's longest first prompt through the model's own tokenizer, when it and the problems are on
 *  disk (rl/plan.ts promptBaseTokens); undefined otherwise (the planner's estimate is used). */
async function measuredPromptBase(config: ExperimentConfig, dataDir: string | undefined): Promise<number | undefined> {
  const source = sourceOnDisk(config);
  if (!source) return undefined;
  let tokenizer;
  try {
    tokenizer = await loadHfTokenizer(source);
  } catch {
    return undefined; // no tokenizer offline (e.g. a catalog model never downloaded)
  }
  let problems;
  try {
    problems = await loadConfigProblems(config, { dataDir });
  } catch {
    return undefined; // a data set not on this machine: the estimate stands (training would report it)
  }
  const n = promptBaseTokens(config, tokenizer, [...problems.train, ...problems.eval]);
  return n > 0 ? n : undefined;
}

export interface PlanRequest {
  config: ExperimentConfig;
  backend: BackendKind;
  memoryBytes?: number;
  weightDtype?: WeightDtype;
  /** WebGPU maxStorageBufferBindingSize to check against (default the spec's 128 MiB) */
  bindingBytes?: number;
  /** the folder of the sets that are not shipped (default $REMA_DATA_DIR) */
  dataDir?: string;
}

export async function runPlan(req: PlanRequest): Promise<Plan> {
  const json = await configJsonOnDisk(req.config);
  const model = modelConfigFor(req.config, () => json);
  const base = await measuredPromptBase(req.config, req.dataDir);
  return planConfig(req.config, model, {
    ...(base !== undefined ? { promptBaseTokens: base } : {}),
    backend: req.backend,
    ...(req.memoryBytes !== undefined ? { memoryBytes: req.memoryBytes } : {}),
    ...(req.weightDtype !== undefined ? { weightDtype: req.weightDtype } : {}),
    ...(req.bindingBytes !== undefined ? { bindingBytes: req.bindingBytes } : {}),
  });
}

function row(name: string, bytes: number): string {
  return `  ${name.padEnd(12)} ${String(bytes).padStart(14)} B  ${formatBytes(bytes)}`;
}

/** The plan as text: one line per category with bytes and a readable size. */
export function formatPlan(plan: Plan): string {
  const b = plan.bytes;
  const lines = [
    `${plan.model}: ${plan.parameters.toLocaleString('en-US')} parameters, base weights ${plan.weightDtype}, KV cache ${plan.kvCacheDtype}`,
    row('weights', b.weights),
    row('lora', b.lora),
    row('optimizer', b.optimizer),
    row('kv_cache', b.kv_cache),
    row('activations', b.activations),
    row('total (peak)', b.total),
    row('host rows', plan.hostBytes),
    plan.limit === null
      ? 'fits: unknown'
      : `fits: ${plan.fits ? 'yes' : 'no'} (limit ${plan.limit} B, ${formatBytes(plan.limit)})`,
  ];
  if (plan.bindings) {
    const { largest, limit } = plan.bindings;
    lines.push(
      `largest binding: ${largest.tensor}, ${largest.bytes} B (${formatBytes(largest.bytes)}) of ` +
        `maxStorageBufferBindingSize ${limit} B (${formatBytes(limit)})`,
    );
    if (plan.bindings.message) lines.push(plan.bindings.message);
  }
  if (plan.suggestion) lines.push(`suggestion: ${plan.suggestion.flags} (peak ${formatBytes(plan.suggestion.total)})`);
  if (plan.note) lines.push(plan.note);
  return lines.join('\n') + '\n';
}
