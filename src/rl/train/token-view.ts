// The per-token text of a trained row for the rollout inspector (records.ts). The ratio and clip code it shows
// beside each token come from the loss itself (losses/policy-loss.ts LossResult.ratio / clip, kept on row.view by
// the update stage), so the inspector never re-evaluates the surrogate.

/**
 * Per-token text of `ids` for display: each id decoded alone; ids that split a multi-byte character (decoding
 * alone gives U+FFFD) are decoded together, the text going to the last of them and '' to the others.
 */
export function tokenPieces(decode: (ids: readonly number[]) => string, ids: readonly number[]): string[] {
  const pieces: string[] = [];
  let pending: number[] = [];
  for (const id of ids) {
    pending.push(id);
    const text = decode(pending);
    if (text.includes('\uFFFD') && pending.length < 4) {
      pieces.push('');
      continue;
    }
    pieces.push(text);
    pending = [];
  }
  return pieces;
}
