// How much memory a checkpoint needs before anything is downloaded or uploaded, so a model that cannot fit the
// chosen backend is refused up front with the numbers (rather than failing half-way through an upload).
import type { BackendLimits } from '../backend.ts';
import type { ModelConfig } from '../model/config.ts';
import { expectedParameterShapes } from '../model/params.ts';

export interface ModelFootprint {
  parameters: number;
  /** all weights at `bytesPerWeight` */
  weightBytes: number;
  largestTensor: { name: string; bytes: number };
  /** K and V of every layer for one token, f32 */
  kvCacheBytesPerToken: number;
}

export function modelFootprint(config: ModelConfig, bytesPerWeight = 4): ModelFootprint {
  let parameters = 0;
  let largestTensor = { name: '', bytes: 0 };
  for (const [name, shape] of expectedParameterShapes(config)) {
    const n = shape.reduce((a, b) => a * b, 1);
    parameters += n;
    if (n * bytesPerWeight > largestTensor.bytes) largestTensor = { name, bytes: n * bytesPerWeight };
  }
  const kvCacheBytesPerToken = 2 * config.numLayers * config.numKvHeads * config.headDim * 4;
  return { parameters, weightBytes: parameters * bytesPerWeight, largestTensor, kvCacheBytesPerToken };
}

export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return 'unlimited';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let v = bytes;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

const BYTE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
};

/** formatBytes's inverse for what people type: "4294967296", "4GiB", "512 MiB", "8GB", "1.5 TiB" -> bytes; null for
 *  anything else (empty, negative, unknown unit, or past the exact integers). */
export function parseBytes(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]i?b|b)?\s*$/i.exec(text);
  const unit = m ? BYTE_UNITS[(m[2] ?? '').toLowerCase()] : undefined;
  const bytes = m && unit !== undefined ? Math.floor(Number(m[1]) * unit) : Number.NaN;
  return bytes > 0 && Number.isSafeInteger(bytes) ? bytes : null;
}

/**
 * Throws when the weights plus a KV cache of `contextTokens` tokens cannot fit the backend's memory, naming the
 * model, the bytes needed and the bytes available.
 */
export function checkModelFits(
  config: ModelConfig,
  limits: BackendLimits,
  options: { bytesPerWeight?: number; contextTokens?: number; where?: string } = {},
): ModelFootprint {
  const bytesPerWeight = options.bytesPerWeight ?? 4;
  const footprint = modelFootprint(config, bytesPerWeight);
  const needed = footprint.weightBytes + footprint.kvCacheBytesPerToken * (options.contextTokens ?? 0);
  if (needed > limits.maxTotalBytes) {
    const where = options.where ? `${options.where}: ` : '';
    throw new Error(
      `${where}the model does not fit: it needs ${formatBytes(needed)} (${footprint.parameters.toLocaleString('en-US')} parameters at ` +
        `${bytesPerWeight} bytes${options.contextTokens ? ` + KV cache for ${options.contextTokens} tokens` : ''}) but the backend allows ` +
        `${formatBytes(limits.maxTotalBytes)}`,
    );
  }
  return footprint;
}
