// The LoRA gradients a full-weight gradient implies, by the chain rule: with W' = W + s·B·A, dA = s·Bᵀ·dW and
// dB = s·dW·Aᵀ. The golden checks (golden-checks.ts, `rema doctor`) and tests/engine/golden.test.ts compare the
// engine's adapter gradients with these, computed in float64 from the fixtures' float64 dW.

/** dA [rank, nIn] and dB [nOut, rank] from dW [nOut, nIn], A [rank, nIn], B [nOut, rank] and the scale s. */
export function loraGradsFromFull(
  dW: ArrayLike<number>,
  A: ArrayLike<number>,
  B: ArrayLike<number>,
  scale: number,
  rank: number,
): { dA: Float64Array; dB: Float64Array } {
  const nIn = A.length / rank;
  const nOut = B.length / rank;
  const dA = new Float64Array(rank * nIn);
  const dB = new Float64Array(nOut * rank);
  for (let o = 0; o < nOut; o++)
    for (let i = 0; i < nIn; i++) {
      const g = dW[o * nIn + i];
      for (let k = 0; k < rank; k++) {
        dB[o * rank + k] += scale * g * A[k * nIn + i];
        dA[k * nIn + i] += scale * B[o * rank + k] * g;
      }
    }
  return { dA, dB };
}
