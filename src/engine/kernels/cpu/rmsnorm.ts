// CPU RMSNorm (kernels `rmsnorm`, `rmsnormBackward`), one row of D features at a time.
//   forward:  rstd[r] = 1 / sqrt(mean_d x[r,d]² + eps);  y[r,d] = x[r,d] * rstd[r] * w[d]
//   backward: with g[d] = dy[r,d] * w[d],
//             dx[r,d] = rstd * g[d] - rstd³ / D * x[r,d] * Σ_e g[e] x[r,e]
//             dw[d]  += Σ_r dy[r,d] * x[r,d] * rstd[r]
// Shapes: x, y, dy, dx [R,D]; w, dw [D]; rstd [R].

/** y[R,D] = x * rstd * w; rstd[R] saved for the backward. */
export function rmsnorm(
  x: Float32Array,
  w: Float32Array,
  y: Float32Array,
  rstd: Float32Array,
  R: number,
  D: number,
  eps: number,
): void {
  for (let r = 0; r < R; r++) {
    const row = r * D;
    let ss = 0;
    for (let d = 0; d < D; d++) ss += x[row + d] * x[row + d];
    const s = 1 / Math.sqrt(ss / D + eps);
    rstd[r] = s;
    for (let d = 0; d < D; d++) y[row + d] = x[row + d] * s * w[d];
  }
}

/** dx overwritten (accumulate=0) or added to (accumulate=1); dw (optional) always accumulated. */
export function rmsnormBackward(
  x: Float32Array,
  w: Float32Array,
  rstd: Float32Array,
  dy: Float32Array,
  dx: Float32Array,
  dw: Float32Array | null,
  R: number,
  D: number,
  accumulate: 0 | 1,
): void {
  for (let r = 0; r < R; r++) {
    const row = r * D;
    const s = rstd[r];
    let dot = 0; // Σ_e dy*w*x
    for (let d = 0; d < D; d++) dot += dy[row + d] * w[d] * x[row + d];
    const c = (s * s * s * dot) / D;
    for (let d = 0; d < D; d++) {
      const g = s * dy[row + d] * w[d] - c * x[row + d];
      dx[row + d] = accumulate ? dx[row + d] + g : g;
    }
    if (dw !== null) for (let d = 0; d < D; d++) dw[d] += dy[row + d] * x[row + d] * s;
  }
}
