// Loading a model for the worker session: where a ModelSpec's files come from (a folder served with the page,
// the Hugging Face hub cached in IndexedDB, a folder the user picked), the backend the page asked for (or, under
// "auto", the one the kept rates chose, else the CPU backend for now: session-auto.ts measures after the start-up
// work), and the tokenizer and weights read from those files, with byte progress. A load error says what a model
// folder holds.
import type { ChatTokenizer } from '../../data/tokenizer.ts';
import { loadHfTokenizer } from '../../data/hf-tokenizer.ts';
import type { Backend } from '../../engine/backend.ts';
import { loadHfCheckpoint, type HfCheckpoint } from '../../engine/io/hf-model.ts';
import { hostParameterCount } from '../../engine/io/host-weights.ts';
import type { HostWeights } from '../../engine/model/config.ts';
import { hubFileSource } from '../../engine/io/hub.ts';
import { indexedDbHubStore } from '../../engine/io/hub-idb-store.ts';
import type { FileSource } from '../../util/file-source.ts';
import { httpFolderSource, localFilesSource } from '../model/file-sources.ts';
import type { ExperimentConfig } from '../../rl/config.ts';
import { startAuto, type PendingAuto } from './backend-auto.ts';
import { openAutoStart, selectBackend } from './backend-select.ts';
import { modelLabel } from './model-label.ts';
import type {
  BackendInfo,
  BackendPreference,
  CachedBackendRates,
  ModelInfo,
  ModelSpec,
  WeightPrecision,
  WorkerEvent,
} from './protocol.ts';

/** A model on its backend: what every trainer of the session is built from. */
export interface LoadedModel {
  backend: Backend;
  backendInfo: BackendInfo;
  /** 16-bit tensors kept as stored (keep16Bit): uploadParams widens them only if the base ends up f32 */
  checkpoint: HfCheckpoint<HostWeights>;
  tokenizer: ChatTokenizer;
  model: ModelInfo;
  /** storage of the frozen base every trainer of the session uses (EnginePolicy baseDtype): the page's choice */
  baseDtype: WeightPrecision;
  /** "auto" without kept rates: the measurement the session runs after its start-up work (session-auto.ts) */
  pendingAuto?: PendingAuto;
}

export function sourceFor(spec: ModelSpec, modelsUrl: string): FileSource {
  switch (spec.kind) {
    case 'embedded':
      return httpFolderSource(`${modelsUrl}${spec.name}`, spec.name);
    case 'hub':
      // files are kept in IndexedDB, so a second load of the same repo needs no network
      return hubFileSource({ repo: spec.repo, revision: spec.revision, store: indexedDbHubStore() });
    case 'local':
      return localFilesSource(spec.files, `local: ${spec.name}`);
  }
}

/** What the load request says about the backend beyond the preference (protocol.ts `load`). */
export interface BackendRequest {
  preference: BackendPreference;
  /** the run's config: "auto" measures its step shape */
  config: ExperimentConfig;
  autoRates?: CachedBackendRates[];
  remeasure?: boolean;
  /** storage of the frozen base (default auto) */
  weights?: WeightPrecision;
}

/** An explicit backend is chosen first (announced at once, so the header shows it even if loading fails); "auto"
 *  opens the CPU backend and finds the WebGPU adapter, reads the model, then chooses from the kept rates or keeps
 *  the CPU backend for now with the measurement pending (backend-auto.ts startAuto), and announces that. */
export async function loadModel(
  spec: ModelSpec,
  request: BackendRequest,
  env: { gpu: GPU | undefined; modelsUrl: string },
  emit: (e: WorkerEvent) => void,
): Promise<LoadedModel> {
  const baseDtype = request.weights ?? 'auto';
  if (request.preference !== 'auto') {
    const { backend, info } = await selectBackend(request.preference, env.gpu);
    emit({ type: 'backend', backend: info });
    const files = await readModel(spec, env, emit, () => backend.destroy());
    return { backend, backendInfo: info, ...files, baseDtype };
  }
  const start = await openAutoStart(env.gpu);
  const files = await readModel(spec, env, emit, () => start.cpu.close());
  const { selected, pending } = await startAuto({
    start,
    config: request.config,
    modelName: files.model.name,
    model: files.checkpoint.config,
    cached: request.autoRates ?? [],
    remeasure: request.remeasure ?? false,
    baseDtype,
  });
  emit({ type: 'backend', backend: selected.info });
  return {
    backend: selected.backend,
    backendInfo: selected.info,
    ...files,
    baseDtype,
    ...(pending ? { pendingAuto: pending } : {}),
  };
}

/** The tokenizer and weights of a model spec, with byte progress; `release` frees the backends on failure. */
async function readModel(
  spec: ModelSpec,
  env: { modelsUrl: string },
  emit: (e: WorkerEvent) => void,
  release: () => void,
): Promise<Omit<LoadedModel, 'backend' | 'backendInfo' | 'baseDtype' | 'pendingAuto'>> {
  const source = sourceFor(spec, env.modelsUrl);
  let tokenizer: ChatTokenizer;
  let checkpoint: HfCheckpoint<HostWeights>;
  try {
    emit({ type: 'progress', part: 'tokenizer', file: 'tokenizer.json', loaded: 0, total: null });
    tokenizer = await loadHfTokenizer(source);
    checkpoint = await loadHfCheckpoint(source, {
      keep16Bit: true,
      onProgress: (p) =>
        emit({
          type: 'progress',
          part: `weights (${p.filesDone}/${p.filesTotal} files)`,
          file: p.file,
          loaded: p.loadedBytes,
          total: p.totalBytes,
        }),
    });
  } catch (e) {
    release();
    const missing = /not found/.test((e as Error).message)
      ? '\nA model folder needs config.json, model.safetensors (or model.safetensors.index.json and its shards), tokenizer.json and tokenizer_config.json (a Llama or Qwen2 checkpoint in Hugging Face layout).'
      : '';
    throw new Error(`could not load the model "${modelLabel(spec)}": ${(e as Error).message}${missing}`, { cause: e });
  }
  const parameters = hostParameterCount(checkpoint.weights);
  const c = checkpoint.config;
  const model: ModelInfo = {
    name: modelLabel(spec),
    architecture: c.architecture,
    parameters,
    layers: c.numLayers,
    hiddenSize: c.hiddenSize,
    vocabSize: c.vocabSize,
  };
  return { checkpoint, tokenizer, model };
}
