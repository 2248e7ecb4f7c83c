// CPU token embedding (kernels `embedding`, `embeddingBackward`).
//   forward:  out[R,D] = table[ids[r], :]   (table [V,D], ids i32 [R])
//   backward: dtable[uniqueIds[u], :] += Σ dout[r, :] over r in rowList[rowStart[u] .. rowStart[u+1])
//             (uniqueIds [U], rowStart [U+1], rowList [R]; the host groups rows by token id, so GPU threads
//             never race on a table row). dtable is accumulated, never cleared here.

export function embedding(ids: Int32Array, table: Float32Array, out: Float32Array, R: number, D: number): void {
  const V = table.length / D;
  // a run of consecutive ids (id, id+1, ...) is one block copy: the decoder gathers whole KV-cache sequences with
  // this kernel (generate.ts), hundreds of thousands of rows a step that would otherwise be copied one by one
  let r = 0;
  while (r < R) {
    const id = ids[r];
    if (id < 0 || id >= V) throw new Error(`embedding: ids[${r}] = ${id} is outside the vocabulary [0, ${V})`);
    let n = 1;
    while (r + n < R && ids[r + n] === id + n && id + n < V) n++;
    out.set(table.subarray(id * D, (id + n) * D), r * D);
    r += n;
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
