// A minimal byte-pair-encoding trainer (Sennrich et al. 2016) over pre-tokenized pieces: count adjacent symbol
// pairs weighted by piece frequency, merge the most frequent, repeat. Ties break on the pair's text so the result
// is deterministic. Used once to build the tiny model's tokenizer.json; encoding is done by @huggingface/tokenizers.

/** Learn `numMerges` merges from piece counts. Pieces are split into single characters first. */
export function trainBpeMerges(pieceCounts: ReadonlyMap<string, number>, numMerges: number): [string, string][] {
  const words = [...pieceCounts].map(([piece, count]) => ({ symbols: [...piece], count }));
  const merges: [string, string][] = [];
  while (merges.length < numMerges) {
    const pairCounts = new Map<string, number>();
    for (const w of words) {
      for (let i = 0; i + 1 < w.symbols.length; i++) {
        const key = `${w.symbols[i]}\u0000${w.symbols[i + 1]}`;
        pairCounts.set(key, (pairCounts.get(key) ?? 0) + w.count);
      }
    }
    let best: string | null = null;
    let bestCount = 1; // a pair seen once is not worth a token
    for (const [key, count] of pairCounts) {
      if (count > bestCount || (count === bestCount && best !== null && key < best)) {
        best = key;
        bestCount = count;
      }
    }
    if (best === null) break;
    const [a, b] = best.split('\u0000');
    merges.push([a, b]);
    for (const w of words) {
      const out: string[] = [];
      for (let i = 0; i < w.symbols.length; i++) {
        if (i + 1 < w.symbols.length && w.symbols[i] === a && w.symbols[i + 1] === b) {
          out.push(a + b);
          i++;
        } else out.push(w.symbols[i]);
      }
      w.symbols = out;
    }
  }
  return merges;
}
