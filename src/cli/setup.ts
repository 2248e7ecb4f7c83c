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
import type { RuntimeChoices } from './runtime-choices.ts';

/** The repository root (src/cli/../..). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const PUBLIC_DATA = resolve(REPO_ROOT, 'public/data');

/** A backend of this kind; a wasm backend runs the build and thread count of `runtime` (--simd, --threads). */
export async function openBackend(
  kind: BackendKind,
  runtime: Pick<RuntimeChoices, 'simd' | 'threads'>,
): Promise<Backend> {
  if (kind === 'cpu') return new CpuBackend();
  if (kind === 'wasm') {
    const { simd, threads } = runtime;
    return WasmBackend.create({
      variant: simd === 'auto' ? 'auto' : simd === 'relaxed' ? 'relaxed-simd' : 'simd',
      threads: threads === 'auto' ? undefined : threads === '2' ? 2 : 1,
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

/** The config's model and tokenizer on a new backend, the base weights stored as `runtime.weightDtype` says. */
export async function loadModel(
  config: ExperimentConfig,
  backendKind: BackendKind,
  runtime: RuntimeChoices,
): Promise<LoadedModel> {
  const source = modelSource(config);
  // 16-bit checkpoints stay 16-bit on the host: a 16-bit base takes them as they are, an f32 one widens per tensor
  const [checkpoint, tokenizer] = await Promise.all([
    loadHfCheckpoint(source, { keep16Bit: true }),
    loadHfTokenizer(source),
  ]);
  const backend = await openBackend(backendKind, runtime);
  const policy = policyForConfig(config, {
    backend,
    checkpoint,
    decoder: tokenizer,
    baseModelName: config.model,
    baseDtype: runtime.weightDtype,
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

/** The config's train and held-out problems; sets that are not shipped come from `runtime.dataDir` (or $REMA_DATA_DIR). */
export async function loadConfigProblems(
  config: ExperimentConfig,
  runtime: Pick<RuntimeChoices, 'dataDir'>,
): Promise<{ train: Problem[]; eval: Problem[] }> {
  const named: string[] = [config.trainSet, config.evalSet];
  const dataDir = dataDirSource([...new Set(named.filter(isDataDirDataset))], runtime.dataDir);
  return problemsForConfig(config, {
    shipped: directoryFileSource(PUBLIC_DATA, 'public/data'),
    ...(dataDir ? { dataDir } : {}),
    userFile,
  });
}
