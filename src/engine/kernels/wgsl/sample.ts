// WGSL `sample`: the next token drawn on the GPU, so a decode step reads back 16 bytes per sequence instead of its
// logits row. One workgroup of SAMPLE_BLOCKS threads per output row; thread j owns the contiguous block j of the
// vocabulary. The algorithm, step by step in f32, is the CPU twin's (kernels/cpu/sample.ts, which documents it):
// statistics at temperature 1, argmax for greedy, bisection over the 32-bit order-preserving logit key for top-k
// (counts) and top-p (masses), then the inverse-CDF walk. Block partials are combined by thread 0 in block order.
// The counter-based uniform is util/rng.ts's uniform01 in u32 arithmetic.
// The 'masked' variant reads a token mask (constrained decoding: ceil(V / 32) words per output row) and runs every
// step over the allowed tokens only, as the twin does; the plain variant has no mask binding.
import { SAMPLE_BLOCKS } from '../cpu/sample.ts';
import { cached, header, type WgslProgram } from './common.ts';

export type SampleVariant = 'plain' | 'masked';

function buildSampleProgram(variant: SampleVariant): WgslProgram {
  const params = {
    R: 'u32',
    L: 'u32',
    V: 'u32',
    greedy: 'u32',
    invT: 'f32',
    topK: 'u32',
    topP: 'f32',
    seed: 'u32',
    counter: 'u32',
  } as const;
  const masked = variant === 'masked';
  const bindings = [
    { name: 'logits', elem: 'f32', access: 'read' },
    { name: 'rowOf', elem: 'i32', access: 'read' },
    { name: 'stream', elem: 'i32', access: 'read' },
    { name: 'out', elem: 'i32', access: 'read_write' },
    ...(masked ? [{ name: 'mask', elem: 'i32', access: 'read' } as const] : []),
  ] as const;
  const NB = SAMPLE_BLOCKS;
  // ok(r, i): may row r draw token i?
  const okFn = masked
    ? `fn ok(r: u32, i: u32) -> bool {
  let W = (P.V + 31u) / 32u;
  return ((bitcast<u32>(mask[r * W + (i >> 5u)]) >> (i & 31u)) & 1u) == 1u;
}`
    : `fn ok(r: u32, i: u32) -> bool { return true; }`;
  const code = `${header(params, bindings)}

const NB: u32 = ${NB}u;
${okFn}
var<workgroup> fpart: array<f32, ${NB}>;
var<workgroup> upart: array<u32, ${NB}>;
var<workgroup> bf: f32;
var<workgroup> bu: u32;

fn key_of(x: f32) -> u32 {
  let b = bitcast<u32>(x);
  return select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
}

fn mix32(x0: u32) -> u32 {
  var x = (x0 ^ (x0 >> 16u)) * 0x85ebca6bu;
  x = (x ^ (x >> 13u)) * 0xc2b2ae35u;
  return x ^ (x >> 16u);
}

// sum of every thread's v, added in thread (block) order by thread 0; uniform result
fn sum_f(v: f32, lid: u32) -> f32 {
  fpart[lid] = v;
  workgroupBarrier();
  if (lid == 0u) {
    var s = 0.0;
    for (var j = 0u; j < NB; j = j + 1u) { s = s + fpart[j]; }
    bf = s;
  }
  return workgroupUniformLoad(&bf);
}

fn sum_u(v: u32, lid: u32) -> u32 {
  upart[lid] = v;
  workgroupBarrier();
  if (lid == 0u) {
    var s = 0u;
    for (var j = 0u; j < NB; j = j + 1u) { s = s + upart[j]; }
    bu = s;
  }
  return workgroupUniformLoad(&bu);
}

fn block_mass(r: u32, base: u32, lo: u32, hi: u32, thr: u32, m: f32) -> f32 {
  var s = 0.0;
  for (var i = lo; i < hi; i = i + 1u) {
    let x = logits[base + i];
    if (ok(r, i) && key_of(x) >= thr) { s = s + exp((x - m) * P.invT); }
  }
  return s;
}

fn block_count(r: u32, base: u32, lo: u32, hi: u32, thr: u32) -> u32 {
  var c = 0u;
  for (var i = lo; i < hi; i = i + 1u) {
    if (ok(r, i) && key_of(logits[base + i]) >= thr) { c = c + 1u; }
  }
  return c;
}

@compute @workgroup_size(${NB})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let r = wid.x;
  let base = min(u32(rowOf[r]), P.L - 1u) * P.V;
  let C = (P.V + NB - 1u) / NB;
  let lo = min(lid * C, P.V);
  let hi = min(lo + C, P.V);
  let NEG_INF = -3.40282346638528859812e+38f; // the lowest finite f32 (a -inf literal is not valid WGSL), as the twin

  // 1. statistics at temperature 1
  var bm = NEG_INF;
  var ba = 0u;
  for (var i = lo; i < hi; i = i + 1u) {
    let x = logits[base + i];
    if (ok(r, i) && x > bm) { bm = x; ba = i; }
  }
  fpart[lid] = bm;
  upart[lid] = ba;
  workgroupBarrier();
  if (lid == 0u) {
    var m = NEG_INF;
    var a = 0u;
    for (var j = 0u; j < NB; j = j + 1u) {
      if (fpart[j] > m) { m = fpart[j]; a = upart[j]; }
    }
    bf = m;
    bu = a;
  }
  let m = workgroupUniformLoad(&bf);
  let arg = workgroupUniformLoad(&bu);
  var s = 0.0;
  var t = 0.0;
  for (var i = lo; i < hi; i = i + 1u) {
    if (!ok(r, i)) { continue; }
    let d = logits[base + i] - m;
    let e = exp(d);
    if (e > 0.0) { s = s + e; t = t + e * d; }
  }
  let S = sum_f(s, lid);
  let T = sum_f(t, lid);
  let logS = log(S);
  let entropy = logS - T / S;

  var token = arg;
  var kept = 1u;
  if (P.greedy == 0u) {
    // 2. the kept set {key >= thr}
    var thr = 0u;
    if (P.topK > 0u) {
      var tk = 0u;
      for (var b = 0u; b < 32u; b = b + 1u) {
        let cand = tk | (0x80000000u >> b);
        if (sum_u(block_count(r, base, lo, hi, cand), lid) >= P.topK) { tk = cand; }
      }
      thr = tk;
    }
    if (P.topP < 1.0) {
      let goal = P.topP * sum_f(block_mass(r, base, lo, hi, thr, m), lid);
      var tp = 0u;
      for (var b = 0u; b < 32u; b = b + 1u) {
        let cand = tp | (0x80000000u >> b);
        if (sum_f(block_mass(r, base, lo, hi, max(cand, thr), m), lid) >= goal) { tp = cand; }
      }
      thr = max(tp, thr);
    }
    // 3. the draw
    kept = sum_u(block_count(r, base, lo, hi, thr), lid);
    fpart[lid] = block_mass(r, base, lo, hi, thr, m);
    workgroupBarrier();
    if (lid == 0u) {
      var M = 0.0;
      for (var j = 0u; j < NB; j = j + 1u) { M = M + fpart[j]; }
      let h = mix32(mix32(mix32(P.seed ^ 0x9e3779b9u) ^ u32(stream[r])) ^ P.counter);
      let u = f32(h >> 8u) * 5.9604644775390625e-8; // exact: h >> 8 < 2^24
      let goal = u * M;
      var c = 0.0;
      var chosen = 0xffffffffu;
      for (var j = 0u; j < NB; j = j + 1u) {
        let next = c + fpart[j];
        if (next > goal) {
          let rest = goal - c;
          var d = 0.0;
          var last = 0xffffffffu;
          let jlo = min(j * C, P.V);
          let jhi = min(jlo + C, P.V);
          for (var i = jlo; i < jhi; i = i + 1u) {
            let x = logits[base + i];
            if (!ok(r, i) || key_of(x) < thr) { continue; }
            last = i;
            d = d + exp((x - m) * P.invT);
            if (d > rest) { chosen = i; break; }
          }
          if (chosen == 0xffffffffu) { chosen = last; }
          break;
        }
        c = next;
      }
      if (chosen == 0xffffffffu) {
        chosen = 0u;
        for (var i = 0u; i < P.V; i = i + 1u) {
          if (ok(r, i) && key_of(logits[base + i]) >= thr) { chosen = i; }
        }
      }
      bu = chosen;
    }
    token = workgroupUniformLoad(&bu);
  }
  if (lid == 0u) {
    let logp = (logits[base + token] - m) - logS;
    out[r * 4u] = i32(token);
    out[r * 4u + 1u] = bitcast<i32>(logp);
    out[r * 4u + 2u] = bitcast<i32>(entropy);
    out[r * 4u + 3u] = i32(kept);
  }
}
`;
  return { key: `sample-${variant}`, code, bindings, params };
}

export const sampleProgram = cached(buildSampleProgram);
