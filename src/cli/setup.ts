// Node plumbing shared by the commands: where the repository's files are, a compute backend by name, the model
// and tokenizer a config names (embedded folder, local folder or Hugging Face hub id), the policy built from
// the config, and the config's problem sets read from disk (public/data, the --data-dir folder, users' files).

import { existsSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Backend, BackendKind } from '../engine/backend.ts';
import { CpuBackend } from '../engine/backends/cpu.ts';
import { WasmBackend } from '../engine/backends/wasm.ts';
import type { EnginePolicy } from '../engine/policy/engine-policy.ts';
import { loadHfCheckpoint } from '../engine/io/hf-model.ts';
import { hostParameterCount, hostWeightsBytes } from '../engine/io/host-weights.ts';
import { loadHfTokenizer } from '../data/hf-tokenizer.ts';
import type { ChatTokenizer } from '../data/tokenizer.ts';
import type { Problem } from '../data/problem.ts';
import type { FileSource } from '../util/file-source.ts';
import type { ExperimentConfig } from '../rl/config.ts';
import { policyForConfig } from '../rl/policy-setup.ts';
import { problemsForConfig } from '../rl/problems.ts';
import { isDataDirDataset } from '../data/datasets.ts';
import { dataDirSource } from './data-dir.ts';
import { directoryFileSource } from './fs-source.ts';
import { openModelSource } from './hub.ts';
import { nodeCores, spawnNodeWasmHelper } from './wasm-helper-node.ts';

/** Which WebAssembly build the wasm backend runs: 'auto' = relaxed SIMD (fused multiply-add) where this Node
 *  validates it (bin/rema.mjs enables it on Node 20), else plain SIMD; 'relaxed' / 'plain' pin one build (the two
 *  round differently, so a recorded run reproduces bit for bit only on the build it ran on). */
export type SimdChoice = 'auto' | 'relaxed' | 'plain';
export const SIMD_CHOICES: readonly SimdChoice[] = ['auto', 'relaxed', 'plain'];
let simdChoice: SimdChoice = 'auto';

/** Sets the build every later openBackend('wasm') uses (the command line's --simd, before any backend opens). */
export function useSimd(choice: SimdChoice): void {
  if (!SIMD_CHOICES.includes(choice)) throw new Error(`--simd: "${choice}" is not one of ${SIMD_CHOICES.join(', ')}`);
  simdChoice = choice;
}

/** Threads of the wasm backend: 'auto' = 2 when the machine has at least 2 cores, else 1 (large matmuls split
 *  over a helper thread; results are bit-identical either way); '1' or '2' pins it. */
export type ThreadsChoice = 'auto' | '1' | '2';
export const THREADS_CHOICES: readonly ThreadsChoice[] = ['auto', '1', '2'];
let threadsChoice: ThreadsChoice = 'auto';

/** Sets the thread count every later openBackend('wasm') uses (the command line's --threads). */
export function useThreads(choice: ThreadsChoice): void {
  if (!THREADS_CHOICES.includes(choice))
    throw new Error(`--threads: "${choice}" is not one of ${THREADS_CHOICES.join(', ')}`);
  threadsChoice = choice;
}

/** Storage of the frozen base weights every later loadModel uses (the command line's --weight-dtype): auto (f16 for
 *  LoRA on a WebGPU device with shader-f16, else f32: engine-policy.ts resolveBaseDtype), f32, or f16 / bf16 halves
 *  on the wasm backend (f16 also on WebGPU with shader-f16); halves for LoRA only. */
export type WeightDtypeChoice = 'auto' | 'f32' | 'f16' | 'bf16';
export const WEIGHT_DTYPE_CHOICES: readonly WeightDtypeChoice[] = ['auto', 'f32', 'f16', 'bf16'];
let weightDtypeChoice: WeightDtypeChoice = 'auto';

export function useWeightDtype(choice: WeightDtypeChoice): void {
  if (!WEIGHT_DTYPE_CHOICES.includes(choice))
    throw new Error(`--weight-dtype: "${choice}" is not one of ${WEIGHT_DTYPE_CHOICES.join(', ')}`);
  weightDtypeChoice = choice;
}

/** The repository root (src/cli/../..). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const PUBLIC_DATA = resolve(REPO_ROOT, 'public/data');

export async function openBackend(kind: BackendKind, simd: SimdChoice = simdChoice): Promise<Backend> {
  if (kind === 'cpu') return new CpuBackend();
  if (kind === 'wasm') {
    return WasmBackend.create({
      variant: simd === 'auto' ? 'auto' : simd === 'relaxed' ? 'relaxed-simd' : 'simd',
      threads: threadsChoice === 'auto' ? undefined : threadsChoice === '2' ? 2 : 1,
      spawnHelper: spawnNodeWasmHelper,
      cores: nodeCores(),
    });
  }
  const { requestDawnDevice } = await import('./webgpu-device.ts');
  const { WebGpuBackend } = await import('../engine/backends/webgpu.ts');
  const dawn = await requestDawnDevice();
  return WebGpuBackend.create(dawn.device, { gpuInfo: dawn.gpuInfo });
}

export function modelSource(config: ExperimentConfig): FileSource {
  if (config.modelSource === 'embedded') {
    const dir = resolve(REPO_ROOT, 'public/models', config.model);
    if (!existsSync(dir)) throw new Error(`embedded model "${config.model}": no folder ${dir}`);
    return directoryFileSource(dir, `public/models/${config.model}`);
  }
  if (config.modelSource === 'local') {
    if (!existsSync(config.model)) throw new Error(`model folder "${config.model}" does not exist`);
    return directoryFileSource(config.model);
  }
  return openModelSource(config.model);
}

export interface LoadedModel {
  policy: EnginePolicy;
  tokenizer: ChatTokenizer;
  backend: Backend;
  /** e.g. "weights: BF16 checkpoint, 494,032,768 parameters read into 988,065,536 bytes on the host; base f16" */
  weightsLine: string;
}

export async function loadModel(config: ExperimentConfig, backendKind: BackendKind): Promise<LoadedModel> {
  const source = modelSource(config);
  // 16-bit checkpoints stay 16-bit on the host: a 16-bit base takes them as they are, an f32 one widens per tensor
  const [checkpoint, tokenizer] = await Promise.all([
    loadHfCheckpoint(source, { keep16Bit: true }),
    loadHfTokenizer(source),
  ]);
  const backend = await openBackend(backendKind);
  const policy = policyForConfig(config, {
    backend,
    checkpoint,
    decoder: tokenizer,
    baseModelName: config.model,
    baseDtype: weightDtypeChoice,
  });
  const parameters = hostParameterCount(checkpoint.weights);
  const weightsLine =
    `weights: ${[...checkpoint.storedDtypes].toSorted().join('+')} checkpoint, ${parameters.toLocaleString('en-US')} ` +
    `parameters read into ${hostWeightsBytes(checkpoint.weights).toLocaleString('en-US')} bytes on the host; base ${policy.baseDtype}`;
  return { policy, tokenizer, backend, weightsLine };
}

/** Opens a user's JSONL by path. */
export function userFile(path: string): { source: FileSource; path: string } {
  const full = resolve(path);
  return { source: directoryFileSource(dirname(full), dirname(full)), path: basename(full) };
}

export async function loadConfigProblems(config: ExperimentConfig): Promise<{ train: Problem[]; eval: Problem[] }> {
  const named: string[] = [config.trainSet, config.evalSet];
  const dataDir = dataDirSource([...new Set(named.filter(isDataDirDataset))]);
  return problemsForConfig(config, {
    shipped: directoryFileSource(PUBLIC_DATA, 'public/data'),
    ...(dataDir ? { dataDir } : {}),
    userFile,
  });
}
