// Random weights of a model's shapes made quickly in-process (xorshift uniform, scaled like N(0, 1/fan_in)), so the
// GPU self-test's speed probe and the GPU benchmarks need no download.
import type { ModelConfig, ModelWeights } from '../model/config.ts';
import { expectedParameterShapes } from '../model/params.ts';

/** Random weights of the right shapes: the same for the same seed. */
export function randomWeights(cfg: ModelConfig, seed: number): ModelWeights {
  let s = seed >>> 0 || 1;
  const weights: ModelWeights = new Map();
  for (const [name, shape] of expectedParameterShapes(cfg)) {
    const n = shape.reduce((x, y) => x * y, 1);
    const data = new Float32Array(n);
    const isNorm = name.endsWith('norm.weight');
    const scale = isNorm ? 0.1 : name.endsWith('.bias') ? 0.1 : shape.length === 2 ? Math.sqrt(3 / shape[1]) : 1;
    for (let i = 0; i < n; i++) {
      s ^= s << 13;
      s >>>= 0;
      s ^= s >>> 17;
      s ^= s << 5;
      s >>>= 0;
      data[i] = (isNorm ? 1 : 0) + scale * ((s / 4294967296) * 2 - 1);
    }
    weights.set(name, { shape: [...shape], data });
  }
  return weights;
}
