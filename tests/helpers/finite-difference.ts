// Test helper: the central finite difference of a scalar objective in one parameter entry, the check every
// gradient test makes against the backward pass: (L(x + h) - L(x - h)) / 2h, the entry restored afterwards.

/** Central difference of `loss` in data[i] with step h; data[i] is restored before returning. */
export async function centralDifference(
  data: Float32Array,
  i: number,
  h: number,
  loss: () => Promise<number>,
): Promise<number> {
  const orig = data[i];
  data[i] = orig + h;
  const lp = await loss();
  data[i] = orig - h;
  const lm = await loss();
  data[i] = orig;
  return (lp - lm) / (2 * h);
}
