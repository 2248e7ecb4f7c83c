// CPU token embedding (kernels `embedding`, `embeddingBackward`).
//   forward:  out[R,D] = table[ids[r], :]   (table [V,D], ids i32 [R])
//   backward: dtable[uniqueIds[u], :] += Σ dout[r, :] over r in rowList[rowStart[u] .. rowStart[u+1])
//             (uniqueIds [U], rowStart [U+1], rowList [R]; the host groups rows by token id, so GPU threads
//             never race on a table row). dtable is accumulated, never cleared here.

export function embedding(ids: Int32Array, table: Float32Array, out: Float32Array, R: number, D: number): void {
  const V = table.length / D;
  for (let r = 0; r < R; r++) {
    const id = ids[r];
    if (id < 0 || id >= V) throw new Error(`embedding: ids[${r}] = ${id} is outside the vocabulary [0, ${V})`);
    out.set(table.subarray(id * D, id * D + D), r * D);
  }
}

export function embeddingBackward(
  dout: Float32Array,
  uniqueIds: Int32Array,
  rowStart: Int32Array,
  rowList: Int32Array,
  dtable: Float32Array,
  U: number,
  D: number,
): void {
  const V = dtable.length / D;
  for (let u = 0; u < U; u++) {
    const id = uniqueIds[u];
    if (id < 0 || id >= V) throw new Error(`embeddingBackward: uniqueIds[${u}] = ${id} is outside [0, ${V})`);
    const dst = id * D;
    for (let q = rowStart[u]; q < rowStart[u + 1]; q++) {
      const src = rowList[q] * D;
      for (let d = 0; d < D; d++) dtable[dst + d] += dout[src + d];
    }
  }
}
