// CPU SwiGLU (kernels `swiglu`, `swigluBackward`, `swigluPacked`): the gated MLP activation, elementwise over g, u, h [R,F].
//   h = silu(g) * u,  silu(g) = g * σ(g)
//   du = dh * silu(g);  dg = dh * u * σ(g) * (1 + g * (1 - σ(g)))

export function swiglu(g: Float32Array, u: Float32Array, h: Float32Array, R: number, F: number): void {
  const n = R * F;
  for (let i = 0; i < n; i++) {
    const x = g[i];
    h[i] = (x / (1 + Math.exp(-x))) * u[i];
  }
}

/** `swiglu` over gu[R, 2F] = [gate | up] per row: h[r, f] = silu(gu[r, f]) * gu[r, F + f]. */
export function swigluPacked(gu: Float32Array, h: Float32Array, R: number, F: number): void {
  for (let r = 0; r < R; r++) {
    const g0 = 2 * r * F;
    for (let f = 0; f < F; f++) {
      const x = gu[g0 + f];
      h[r * F + f] = (x / (1 + Math.exp(-x))) * gu[g0 + F + f];
    }
  }
}

/** dg, du overwritten. */
export function swigluBackward(
  g: Float32Array,
  u: Float32Array,
  dh: Float32Array,
  dg: Float32Array,
  du: Float32Array,
  R: number,
  F: number,
): void {
  const n = R * F;
  for (let i = 0; i < n; i++) {
    const x = g[i];
    const sig = 1 / (1 + Math.exp(-x));
    const d = dh[i];
    du[i] = d * x * sig;
    dg[i] = d * u[i] * sig * (1 + x * (1 - sig));
  }
}
