// Loads a Hugging Face model folder (config.json + model.safetensors, or model.safetensors.index.json + shards)
// into ModelWeights (float32; with keep16Bit, F16 / BF16 tensors stay 16-bit words as stored), checking that every tensor config.json implies is there with the right shape.
// Also writes and reads full weights as one safetensors file (full fine-tuning checkpoints). A NaN or infinite
// value in any tensor is refused, naming the file and the tensor (finite.ts).
import type { FileSource } from '../../util/file-source.ts';
import type { HostTensor, HostWeights, ModelConfig, ModelWeights } from '../model/config.ts';
import { expectedParameterShapes } from '../model/params.ts';
import { decodeFiniteFloat32, decodeFiniteHalfBits } from './finite.ts';
import { parseHfConfig } from './hf-config.ts';
import { widenWeights } from './host-weights.ts';
import { readSafetensorsHeader, writeSafetensors, type SafetensorsHeaderEntry } from './safetensors.ts';

export interface CheckpointProgress {
  /** the file being read, e.g. "model-00001-of-00002.safetensors" */
  file: string;
  loadedBytes: number;
  totalBytes: number | null;
  /** files finished so far, out of filesTotal (config and index included) */
  filesDone: number;
  filesTotal: number;
}

export interface LoadCheckpointOptions {
  onProgress?: (progress: CheckpointProgress) => void;
  /** true: F16 and BF16 tensors stay their 16-bit words as stored (HalfTensor, 2 bytes per parameter on the host
   *  instead of 4), for a caller that uploads them to a 16-bit base or widens them one at a time (uploadParams);
   *  F32 / F64 tensors are float32 either way. Default false: every tensor float32. */
  keep16Bit?: boolean;
}

/** A loaded checkpoint; `W` is HostWeights when loaded with keep16Bit. */
export interface HfCheckpoint<W extends HostWeights = ModelWeights> {
  config: ModelConfig;
  /** config.json as parsed, for fields the engine does not normalise */
  rawConfig: Record<string, unknown>;
  weights: W;
  /** dtypes the weights were stored in, e.g. {"BF16"} */
  storedDtypes: Set<string>;
}

const FLOAT_DTYPES = new Set(['F32', 'F16', 'BF16', 'F64']);
/** Tensors some checkpoints carry that carry no parameters (old Llama exports save RoPE's inv_freq buffer). */
const IGNORED = /\.rotary_emb\.inv_freq$/;

function parseJsonFile(bytes: Uint8Array, where: string): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch (e) {
    throw new Error(`${where}: invalid JSON: ${(e as Error).message}`, { cause: e });
  }
}

async function readRequired(
  source: FileSource,
  path: string,
  onProgress?: (loaded: number, total: number | null) => void,
): Promise<Uint8Array> {
  const bytes = await source.read(path, onProgress);
  if (bytes === null) throw new Error(`${source.name}/${path}: file not found`);
  return bytes;
}

/** Which file holds each tensor: a single model.safetensors, or the index's weight_map. */
async function locateTensors(source: FileSource): Promise<Map<string, string> | null> {
  const indexPath = 'model.safetensors.index.json';
  const indexBytes = await source.read(indexPath);
  if (indexBytes === null) return null;
  const where = `${source.name}/${indexPath}`;
  const index = parseJsonFile(indexBytes, where) as { weight_map?: unknown };
  const map = index?.weight_map;
  if (typeof map !== 'object' || map === null || Array.isArray(map))
    throw new Error(`${where}: field "weight_map" is missing or not an object`);
  const out = new Map<string, string>();
  for (const [name, file] of Object.entries(map)) {
    if (typeof file !== 'string' || file.includes('..') || file.startsWith('/')) {
      throw new Error(
        `${where}: weight_map["${name}"] must be a file name in the same folder, got ${JSON.stringify(file)}`,
      );
    }
    out.set(name, file);
  }
  return out;
}

/**
 * Take the expected parameters out of one safetensors file's tensors. `wanted` maps tensor names to the shape the
 * config implies; found tensors are removed from it. Tensors the config does not expect are an error.
 */
function takeTensors(
  bytes: Uint8Array,
  where: string,
  wanted: Map<string, number[]>,
  config: ModelConfig,
  weights: Map<string, HostTensor>,
  storedDtypes: Set<string>,
  onlyNames?: Set<string>,
  keep16Bit = false,
): void {
  const { entries } = readSafetensorsHeader(bytes, where);
  const unexpected: string[] = [];
  for (const [name, entry] of entries) {
    if (onlyNames && !onlyNames.has(name)) continue;
    if (IGNORED.test(name)) continue;
    if (name === 'lm_head.weight' && config.tieWordEmbeddings) continue; // tied: the embedding is the head
    const shape = wanted.get(name);
    if (!shape) {
      unexpected.push(name);
      continue;
    }
    checkEntry(entry, name, shape, where);
    const shape16 = entry.shape.slice();
    if (keep16Bit && (entry.dtype === 'F16' || entry.dtype === 'BF16')) {
      const dtype = entry.dtype === 'F16' ? 'f16' : 'bf16';
      weights.set(name, { shape: shape16, dtype, bits: decodeFiniteHalfBits(bytes, entry, where, name) });
    } else weights.set(name, { shape: shape16, data: decodeFiniteFloat32(bytes, entry, where, name) });
    storedDtypes.add(entry.dtype);
    wanted.delete(name);
  }
  if (unexpected.length > 0) {
    const list = unexpected
      .slice(0, 5)
      .map((n) => `"${n}"`)
      .join(', ');
    throw new Error(
      `${where}: unexpected tensor${unexpected.length > 1 ? 's' : ''} ${list}${unexpected.length > 5 ? ` and ${unexpected.length - 5} more` : ''} that config.json does not imply (wrong config.json or unsupported model?)`,
    );
  }
}

function checkEntry(entry: SafetensorsHeaderEntry, name: string, shape: number[], where: string): void {
  if (!FLOAT_DTYPES.has(entry.dtype))
    throw new Error(`${where}: tensor "${name}" has dtype ${entry.dtype}; weights must be F32, F16, BF16 or F64`);
  if (entry.shape.length !== shape.length || entry.shape.some((d, i) => d !== shape[i])) {
    throw new Error(
      `${where}: tensor "${name}" has shape [${entry.shape.join(', ')}] but config.json implies [${shape.join(', ')}]`,
    );
  }
}

function reportMissing(wanted: Map<string, number[]>, where: string): void {
  if (wanted.size === 0) return;
  const names = [...wanted.keys()];
  const list = names
    .slice(0, 5)
    .map((n) => `"${n}" [${wanted.get(n)!.join(', ')}]`)
    .join(', ');
  throw new Error(
    `${where}: missing tensor${names.length > 1 ? 's' : ''} ${list}${names.length > 5 ? ` and ${names.length - 5} more` : ''}`,
  );
}

/**
 * Load config.json and all weights of a Hugging Face Llama / Qwen2 folder: as float32, or with keep16Bit F16 / BF16
 * tensors as stored. Shards are read one at a time and each file's bytes are dropped once its tensors are copied
 * out (every tensor owns its buffer), so the peak is about one shard plus the tensors decoded so far.
 */
export function loadHfCheckpoint(
  source: FileSource,
  options: LoadCheckpointOptions & { keep16Bit: true },
): Promise<HfCheckpoint<HostWeights>>;
export function loadHfCheckpoint(
  source: FileSource,
  options?: LoadCheckpointOptions & { keep16Bit?: false },
): Promise<HfCheckpoint>;
export function loadHfCheckpoint(
  source: FileSource,
  options?: LoadCheckpointOptions,
): Promise<HfCheckpoint<HostWeights>>;
export async function loadHfCheckpoint(
  source: FileSource,
  options: LoadCheckpointOptions = {},
): Promise<HfCheckpoint<HostWeights>> {
  const { onProgress, keep16Bit = false } = options;
  const configBytes = await readRequired(source, 'config.json');
  const configWhere = `${source.name}/config.json`;
  const rawConfig = parseJsonFile(configBytes, configWhere) as Record<string, unknown>;
  const config = parseHfConfig(rawConfig, configWhere);

  const wanted = expectedParameterShapes(config);
  const weights = new Map<string, HostTensor>();
  const storedDtypes = new Set<string>();
  const located = await locateTensors(source);
  const files = located ? [...new Set(located.values())] : ['model.safetensors'];
  const filesTotal = files.length + 1 + (located ? 1 : 0);
  let filesDone = filesTotal - files.length;

  if (located) {
    for (const [name, shape] of wanted) {
      if (!located.has(name))
        throw new Error(
          `${source.name}/model.safetensors.index.json: missing tensor "${name}" [${shape.join(', ')}] in weight_map`,
        );
    }
  }
  for (const file of files) {
    const where = `${source.name}/${file}`;
    let bytes: Uint8Array | null = await source.read(file, (loadedBytes, totalBytes) =>
      onProgress?.({ file, loadedBytes, totalBytes, filesDone, filesTotal }),
    );
    if (bytes === null) {
      throw new Error(
        located
          ? `${where}: file not found (listed in model.safetensors.index.json)`
          : `${source.name}: no model.safetensors or model.safetensors.index.json`,
      );
    }
    const namesInFile = located ? new Set([...located].filter(([, f]) => f === file).map(([n]) => n)) : undefined;
    takeTensors(bytes, where, wanted, config, weights, storedDtypes, namesInFile, keep16Bit);
    const fileBytes = bytes.length;
    bytes = null; // nothing decoded refers to the file's bytes: let them go before the next shard is read
    if (namesInFile) {
      for (const name of namesInFile) {
        if (wanted.has(name))
          throw new Error(
            `${where}: missing tensor "${name}" [${wanted.get(name)!.join(', ')}] (model.safetensors.index.json puts it in this file)`,
          );
      }
    }
    filesDone++;
    onProgress?.({ file, loadedBytes: fileBytes, totalBytes: fileBytes, filesDone, filesTotal });
  }
  reportMissing(wanted, located ? `${source.name}/model.safetensors.index.json` : `${source.name}/model.safetensors`);
  return { config, rawConfig, weights, storedDtypes };
}

/** Full weights as one F32 safetensors file with HF names (a tied lm_head is not written, as HF does). */
export function serializeModelWeights(
  weights: ModelWeights,
  metadata: Record<string, string> = { format: 'pt' },
): Uint8Array {
  const tensors = new Map<string, { dtype: 'F32'; shape: number[]; data: Float32Array }>();
  for (const [name, t] of weights) tensors.set(name, { dtype: 'F32', shape: t.shape, data: t.data });
  return writeSafetensors(tensors, metadata);
}

/** Read full weights written by serializeModelWeights (or any HF model.safetensors) and check them against the config. */
export function deserializeModelWeights(
  bytes: Uint8Array,
  config: ModelConfig,
  fileName = 'model.safetensors',
): ModelWeights {
  const wanted = expectedParameterShapes(config);
  const weights = new Map<string, HostTensor>();
  takeTensors(bytes, fileName, wanted, config, weights, new Set());
  reportMissing(wanted, fileName);
  return widenWeights(weights); // all float32 already (no keep16Bit): the same arrays in a ModelWeights
}
