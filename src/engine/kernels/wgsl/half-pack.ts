// Writing f32 values into f16 storage (the KV cache) without an indeterminate half: WGSL's pack2x16float gives an
// indeterminate result for a value past the largest half, ±65,504 (NaN on some implementations, inf on others), so
// the writers clamp to ±65,504 first and count every value they clamped in an atomic counter that the backend reads
// back (WebGpuBackend.halfClamps). NaN stays NaN and is not counted (it was not finite to begin with).
import type { BindingSpec } from './common.ts';

/** The largest finite half. */
export const HALF_MAX = 65504;

/** The counter binding, last in a writer's bindings: declared by halfPackCode, not by header(). */
export const CLAMP_COUNTER: BindingSpec = { name: 'clamped', elem: 'u32', access: 'read_write', declare: false };

/** The counter's declaration at `binding` (its index in the program's bindings + 1) and `packHalf(a, b)`, which
 *  packs two values into a word of halves, clamped to ±HALF_MAX and counted. */
export function halfPackCode(binding: number): string {
  return `@group(0) @binding(${binding}) var<storage, read_write> clamped: array<atomic<u32>>;

fn packHalf(a: f32, b: f32) -> u32 {
  let v = vec2<f32>(a, b);
  let over = abs(v) > vec2<f32>(${HALF_MAX}.0);
  if (any(over)) { atomicAdd(&clamped[0], select(0u, 1u, over.x) + select(0u, 1u, over.y)); }
  return pack2x16float(select(v, clamp(v, vec2<f32>(-${HALF_MAX}.0), vec2<f32>(${HALF_MAX}.0)), over));
}`;
}
