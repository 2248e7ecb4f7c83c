// AssemblyScript: storing a 4x8 register block of a matmul (matmul.ts, matmul-direct.ts): C = alpha * acc
// (+ beta * C) (+ bias), four columns per vector, a partial vector at the matrix's right edge.

import { madd } from './simd';

// @ts-ignore: decorator
@inline export function finish(cp: usize, acc: v128, bias: usize, j: i32, cols: i32, alpha: f32, beta: f32): void {
  // acc holds 4 consecutive columns j..j+3 of one row; cols of them are inside the matrix
  let v = f32x4.mul(acc, f32x4.splat(alpha));
  if (cols >= 4) {
    if (beta != 0) v = madd(v128.load(cp), f32x4.splat(beta), v);
    if (bias) v = f32x4.add(v, v128.load(bias + (<usize>j << 2)));
    v128.store(cp, v);
    return;
  }
  for (let jj = 0; jj < cols; jj++) {
    let x: f32 = 0;
    if (jj == 0) x = f32x4.extract_lane(v, 0);
    else if (jj == 1) x = f32x4.extract_lane(v, 1);
    else x = f32x4.extract_lane(v, 2);
    const at = cp + (<usize>jj << 2);
    if (beta != 0) x += beta * load<f32>(at);
    if (bias) x += load<f32>(bias + (<usize>(j + jj) << 2));
    store<f32>(at, x);
  }
}

// @ts-ignore: decorator
@inline export function finishRow(cp: usize, lo: v128, hi: v128, bias: usize, j: i32, cols0: i32, cols1: i32, alpha: f32, beta: f32): void {
  finish(cp, lo, bias, j, cols0, alpha, beta);
  if (cols1 > 0) finish(cp + 16, hi, bias, j + 4, cols1, alpha, beta);
}

