// WGSL reductions without float atomics: each thread sums its own strided share into a partial, a second pass
// (one thread) adds the partials in a fixed order, so results are deterministic.
//   sumRows:     out[n] = beta * out[n] + sum_m x[m, n]            one thread per column (bias gradients)
//   sumSquares:  partial[base + i] = sum_j x[i + j*P]^2  (P = number of partials of this chunk);
//                then out[0] (+)= sum of all partials
import { cached, entry1d, header, type WgslProgram } from './common.ts';

function buildSumRowsProgram(wg: number): WgslProgram {
  const params = { M: 'u32', N: 'u32', beta: 'f32' } as const;
  const bindings = [
    { name: 'x', elem: 'f32', access: 'read' },
    { name: 'out', elem: 'f32', access: 'read_write' },
  ] as const;
  const code = `${header(params, bindings)}

${entry1d(wg)}
  if (gid >= P.N) { return; }
  var acc = 0.0;
  for (var m = 0u; m < P.M; m = m + 1u) { acc = acc + x[m * P.N + gid]; }
  if (P.beta != 0.0) { acc = acc + P.beta * out[gid]; }
  out[gid] = acc;
}
`;
  return { key: `sumRows:wg${wg}`, code, bindings, params, wg };
}

function buildSumSquaresPartialProgram(wg: number): WgslProgram {
  const params = { n: 'u32', parts: 'u32', base: 'u32' } as const;
  const bindings = [
    { name: 'x', elem: 'f32', access: 'read' },
    { name: 'partial', elem: 'f32', access: 'read_write' },
  ] as const;
  const code = `${header(params, bindings)}

${entry1d(wg)}
  if (gid >= P.parts) { return; }
  var acc = 0.0;
  for (var i = gid; i < P.n; i = i + P.parts) { let v = x[i]; acc = acc + v * v; }
  partial[P.base + gid] = acc;
}
`;
  return { key: `sumSquaresPartial:wg${wg}`, code, bindings, params, wg };
}

function buildSumSquaresFinalProgram(): WgslProgram {
  const params = { parts: 'u32', accumulate: 'u32' } as const;
  const bindings = [
    { name: 'partial', elem: 'f32', access: 'read' },
    { name: 'out', elem: 'f32', access: 'read_write' },
  ] as const;
  const code = `${header(params, bindings)}

@compute @workgroup_size(1)
fn main() {
  var acc = 0.0;
  for (var i = 0u; i < P.parts; i = i + 1u) { acc = acc + partial[i]; }
  if (P.accumulate == 1u) { acc = acc + out[0]; }
  out[0] = acc;
}
`;
  return { key: 'sumSquaresFinal', code, bindings, params };
}

export const sumRowsProgram = cached(buildSumRowsProgram);

export const sumSquaresPartialProgram = cached(buildSumSquaresPartialProgram);

export const sumSquaresFinalProgram = cached(buildSumSquaresFinalProgram);
