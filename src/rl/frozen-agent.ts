// Loads a frozen agent from an ONNX model folder in the layout of the hub's "onnx-community" repos:
//   config.json, tokenizer.json, tokenizer_config.json (generation_config.json), onnx/model.onnx (+ onnx/model.onnx_data)
// (model.onnx at the folder's root is accepted too). The result is a Policy that generates and scores but never
// trains (OnnxFrozenPolicy), with the model's own tokenizer and chat template, for TrainerOptions.frozen or as the
// policy of an evaluation (the VRP baseline of any ONNX model). onnxruntime is injected (onnxruntime-node in the CLI,
// onnxruntime-web in the page), so this file imports neither, nor node:* or the DOM.

import { loadHfTokenizer } from '../data/hf-tokenizer.ts';
import type { ChatTokenizer } from '../data/tokenizer.ts';
import { parseHfConfig } from '../engine/io/hf-config.ts';
import type { ModelConfig } from '../engine/model/config.ts';
import { OnnxFrozenPolicy, type OrtSessionLike, type OrtTensorLike } from '../engine/policy/onnx-frozen-policy.ts';
import type { FileSource } from '../util/file-source.ts';

/** The session options this file passes (a subset of onnxruntime's InferenceSession.SessionOptions). */
export interface OrtCreateOptions {
  executionProviders?: readonly string[];
  /** weights stored beside the graph (model.onnx_data), by the file name the graph refers to */
  externalData?: readonly { path: string; data: Uint8Array }[];
}

/** The parts of an onnxruntime module (`import * as ort from 'onnxruntime-node' | 'onnxruntime-web'`) used here. */
export interface OrtModuleLike {
  InferenceSession: { create(model: Uint8Array, options?: OrtCreateOptions): Promise<OrtSessionLike> };
  Tensor: new (type: 'int64' | 'float32', data: BigInt64Array | Float32Array, dims: readonly number[]) => OrtTensorLike;
}

export interface LoadOnnxAgentOptions {
  /**
   * Execution providers to try, in order; the first that creates a session runs the model (e.g. ['webgpu', 'wasm']
   * in the page, ['cpu'] in node). Default: onnxruntime's own default (reported as "default").
   */
  executionProviders?: readonly string[];
  /** per-file byte progress while the folder's files are read (downloads, for hub sources) */
  onProgress?: (file: string, loadedBytes: number, totalBytes: number | null) => void;
}

export interface OnnxAgent {
  policy: OnnxFrozenPolicy;
  tokenizer: ChatTokenizer;
  config: ModelConfig;
  /** the execution provider that runs the session ("default" when none was asked for) */
  executionProvider: string;
  /** the graph's path inside the folder (e.g. "onnx/model.onnx") */
  modelFile: string;
  /** why each execution provider tried before `executionProvider` could not open the model ("webgpu: ...") */
  fallbacks: string[];
}

/** Graph locations tried in order: the onnx-community layout, then a bare folder. */
export const ONNX_MODEL_PATHS = ['onnx/model.onnx', 'model.onnx'] as const;

function readTracked(files: FileSource, path: string, opts: LoadOnnxAgentOptions): Promise<Uint8Array | null> {
  return files.read(path, opts.onProgress ? (loaded, total) => opts.onProgress!(path, loaded, total) : undefined);
}

async function readConfig(files: FileSource, opts: LoadOnnxAgentOptions): Promise<ModelConfig> {
  const where = `${files.name}/config.json`;
  const bytes = await readTracked(files, 'config.json', opts);
  if (bytes === null)
    throw new Error(`${where}: file not found (an ONNX agent folder needs config.json beside onnx/model.onnx)`);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch (e) {
    throw new Error(`${where}: not valid JSON (${(e as Error).message})`, { cause: e });
  }
  return parseHfConfig(json, where);
}

async function createSession(
  ort: OrtModuleLike,
  graph: Uint8Array,
  externalData: OrtCreateOptions['externalData'],
  providers: readonly string[] | undefined,
  where: string,
): Promise<{ session: OrtSessionLike; executionProvider: string; fallbacks: string[] }> {
  const base: OrtCreateOptions = externalData ? { externalData } : {};
  if (!providers || providers.length === 0)
    return { session: await ort.InferenceSession.create(graph, base), executionProvider: 'default', fallbacks: [] };
  const failures: string[] = [];
  for (const ep of providers) {
    try {
      return {
        session: await ort.InferenceSession.create(graph, { ...base, executionProviders: [ep] }),
        executionProvider: ep,
        fallbacks: failures,
      };
    } catch (e) {
      failures.push(`${ep}: ${(e as Error).message}`);
    }
  }
  throw new Error(`${where}: no execution provider could run the model (${failures.join('; ')})`);
}

/**
 * Reads config.json, the tokenizer files and the ONNX graph of `files`, opens an onnxruntime session on the first
 * execution provider that accepts it, and wraps it as a frozen Policy. Errors name the folder and the missing file.
 */
export async function loadOnnxAgent(
  files: FileSource,
  ort: OrtModuleLike,
  opts: LoadOnnxAgentOptions = {},
): Promise<OnnxAgent> {
  const config = await readConfig(files, opts);
  const tokenizer = await loadHfTokenizer(files);
  let modelFile: string | null = null;
  let graph: Uint8Array | null = null;
  for (const path of ONNX_MODEL_PATHS) {
    graph = await readTracked(files, path, opts);
    if (graph !== null) {
      modelFile = path;
      break;
    }
  }
  if (graph === null || modelFile === null)
    throw new Error(`${files.name}: no ONNX model (looked for ${ONNX_MODEL_PATHS.join(' and ')})`);
  const dataName = `${modelFile.split('/').pop()!}_data`;
  const data = await readTracked(files, `${modelFile}_data`, opts);
  const externalData = data ? [{ path: dataName, data }] : undefined;
  const where = `${files.name}/${modelFile}`;
  const { session, executionProvider, fallbacks } = await createSession(
    ort,
    graph,
    externalData,
    opts.executionProviders,
    where,
  );
  let policy: OnnxFrozenPolicy;
  try {
    policy = new OnnxFrozenPolicy({
      session,
      tensor: (type, d, dims) => new ort.Tensor(type, d, dims),
      config,
      decoder: tokenizer,
    });
  } catch (e) {
    throw new Error(`${where}: ${(e as Error).message}`, { cause: e });
  }
  if (tokenizer.vocabSize > config.vocabSize)
    throw new Error(
      `${files.name}: tokenizer.json has ${tokenizer.vocabSize} tokens but config.json's vocab_size is ${config.vocabSize}`,
    );
  return { policy, tokenizer, config, executionProvider, modelFile, fallbacks };
}
