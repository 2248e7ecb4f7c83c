// AssemblyScript (WebAssembly SIMD): the per-chunk steps of the vocabulary-chunked log-prob kernels. The chunk
// logits [R,n] come from the SIMD matmul; these walk them with 4-lane exponentials. Math as in the TypeScript
// reference kernels/cpu/logprob.ts:
//   forward, per row, online over chunks: m = running max, s = Σ exp(l - m), t = Σ exp(l - m) * l  (f64 state),
//   and picked = the target's logit when the target falls in this chunk (v0 <= target < v0 + n);
//   backward: dl_v = coef·(onehot_v - p_v) - entCoef·p_v·(log p_v + H), p_v = exp(l_v - lse); coef counts as 0
//   for a padding row (target < 0).
// Pointers are byte offsets; logits/dl f32 [R,n]; target i32 [R]; m, s, t, picked f64 [R]; lse, entropy, coef,
// entCoef f32 [R].

import { expNonPositive, expv, hmax, hsum, madd } from './simd';

export function logprobChunk(
  logits: usize, R: i32, n: i32, v0: i32, target: usize, m: usize, s: usize, t: usize, picked: usize,
): void {
  for (let r = 0; r < R; r++) {
    const row = logits + (<usize>(r * n) << 2);
    const at = <usize>r << 3;
    // chunk max
    let mv = f32x4.splat(-Infinity);
    let c = 0;
    for (; c + 4 <= n; c += 4) mv = f32x4.max(mv, v128.load(row + (<usize>c << 2)));
    let cmax = hmax(mv);
    for (; c < n; c++) cmax = max(cmax, load<f32>(row + (<usize>c << 2)));
    const mOld = load<f64>(m + at);
    const mNew = max(mOld, <f64>cmax);
    // Σ exp(l - mNew) and Σ exp(l - mNew) * l over the chunk
    const mv32 = f32x4.splat(<f32>mNew);
    let sv = f32x4.splat(0), tv = f32x4.splat(0);
    c = 0;
    for (; c + 4 <= n; c += 4) {
      const l = v128.load(row + (<usize>c << 2));
      const e = expNonPositive(f32x4.sub(l, mv32)); // l <= mNew
      sv = f32x4.add(sv, e);
      tv = madd(e, l, tv);
    }
    let sc: f64 = <f64>hsum(sv), tc: f64 = <f64>hsum(tv);
    for (; c < n; c++) {
      const l = load<f32>(row + (<usize>c << 2));
      const e = Mathf.exp(l - <f32>mNew);
      sc += e;
      tc += e * l;
    }
    const rescale = Math.exp(mOld - mNew); // 0 on the first chunk (mOld = -Inf)
    store<f64>(m + at, mNew);
    store<f64>(s + at, load<f64>(s + at) * rescale + sc);
    store<f64>(t + at, load<f64>(t + at) * rescale + tc);
    const tg = load<i32>(target + (<usize>r << 2)) - v0;
    if (tg >= 0 && tg < n) store<f64>(picked + at, <f64>load<f32>(row + (<usize>tg << 2)));
  }
}

/** In place: logits [R,n] of this chunk -> their gradient dl. */
/** Logit gradients below this magnitude are written as 0. Tokens the model all but rules out (p of 1e-38 and
 *  less, common with real models' sharp distributions) otherwise give subnormal floats, and every matmul that
 *  reads them (dh += dl W) runs one to two orders of magnitude slower on x64; their share of any gradient is
 *  below f32's resolution. */
const TINY_GRADIENT: f32 = 1e-30;

export function dlogitsChunk(
  dl: usize, R: i32, n: i32, v0: i32, target: usize, lse: usize, entropy: usize, coef: usize, entCoef: usize,
): void {
  for (let r = 0; r < R; r++) {
    const row = dl + (<usize>(r * n) << 2);
    const ri = <usize>r << 2;
    const tgAbs = load<i32>(target + ri);
    const cr: f32 = tgAbs < 0 ? 0 : load<f32>(coef + ri);
    const er = load<f32>(entCoef + ri), l0 = load<f32>(lse + ri), H = load<f32>(entropy + ri);
    const l0v = f32x4.splat(l0), crv = f32x4.splat(cr), erv = f32x4.splat(er), Hv = f32x4.splat(H);
    const tiny = f32x4.splat(TINY_GRADIENT);
    let c = 0;
    for (; c + 4 <= n; c += 4) {
      const at = row + (<usize>c << 2);
      const logP = f32x4.sub(v128.load(at), l0v);
      const p = expv(logP);
      // -p * (cr + er * (logP + H)), flushed to 0 below TINY_GRADIENT
      const g = f32x4.neg(f32x4.mul(p, f32x4.add(crv, f32x4.mul(erv, f32x4.add(logP, Hv)))));
      v128.store(at, v128.and(g, f32x4.ge(f32x4.abs(g), tiny)));
    }
    for (; c < n; c++) {
      const at = row + (<usize>c << 2);
      const logP = load<f32>(at) - l0;
      const p = Mathf.exp(logP);
      const g = -p * (cr + er * (logP + H));
      store<f32>(at, Mathf.abs(g) >= TINY_GRADIENT ? g : 0);
    }
    const tg = tgAbs - v0;
    if (tg >= 0 && tg < n) {
      const at = row + (<usize>tg << 2);
      store<f32>(at, load<f32>(at) + cr);
    }
  }
}
