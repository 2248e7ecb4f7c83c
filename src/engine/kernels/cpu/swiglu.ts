// CPU SwiGLU (kernels `swiglu`, `swigluBackward`): the gated MLP activation, elementwise over g, u, h [R,F].
//   h = silu(g) * u,  silu(g) = g * σ(g)
//   du = dh * silu(g);  dg = dh * u * σ(g) * (1 + g * (1 - σ(g)))

export function swiglu(g: Float32Array, u: Float32Array, h: Float32Array, R: number, F: number): void {
  const n = R * F;
  for (let i = 0; i < n; i++) {
    const x = g[i];
    h[i] = (x / (1 + Math.exp(-x))) * u[i];
  }
}

/** dg, du overwritten. */
export function swigluBackward(
  g: Float32Array, u: Float32Array, dh: Float32Array, dg: Float32Array, du: Float32Array, R: number, F: number,
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
