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
