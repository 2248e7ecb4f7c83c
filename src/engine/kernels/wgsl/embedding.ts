// WGSL token embedding and its backward. The table may be split over several buffers (large vocabularies):
// the host runs one dispatch per chunk of table rows [row0, row0 + rows), and each thread acts only when its
// token id falls in that chunk.
//   embedding:          out[r, d] = table[ids[r], d]                       one thread per (r, d)
//   embeddingBackward:  dtable[uniqueIds[u], d] += sum_{q in rowStart[u]..rowStart[u+1]} dout[rowList[q], d]
//                       one thread per (u, d); the host grouped rows by id, so no two threads share a table row
//                       and no float atomics are needed.
//   embeddingHalfRows:  the same gather from halves to halves (an f16 KV cache compacted to its live rows), one
//                       thread per word of two halves (D even), copied bit for bit
// An id outside [0, V) matches no chunk and leaves its output row as it was (a shader cannot throw; the CPU
// backend reports it).
import { cached, entry1d, header, type ElemType, type WgslProgram } from './common.ts';

function buildEmbeddingProgram(table: ElemType, wg: number): WgslProgram {
  const params = { n: 'u32', D: 'u32', row0: 'u32', rows: 'u32' } as const;
  const bindings = [
    { name: 'ids', elem: 'i32', access: 'read' },
    { name: 'table', elem: table, access: 'read' },
    { name: 'out', elem: 'f32', access: 'read_write' },
  ] as const;
  const code = `${header(params, bindings)}

${entry1d(wg)}
  if (gid >= P.n) { return; }
  let r = gid / P.D;
  let d = gid - r * P.D;
  let local = ids[r] - i32(P.row0);
  if (local < 0 || local >= i32(P.rows)) { return; }
  out[gid] = ld_table(u32(local) * P.D + d);
}
`;
  return { key: `embedding:${table}:wg${wg}`, code, bindings, params, wg };
}

function buildEmbeddingHalfRowsProgram(wg: number): WgslProgram {
  // n = R * D / 2 words; D2 = D / 2
  const params = { n: 'u32', D2: 'u32', row0: 'u32', rows: 'u32' } as const;
  const bindings = [
    { name: 'ids', elem: 'i32', access: 'read' },
    { name: 'table', elem: 'u32', access: 'read' },
    { name: 'out', elem: 'u32', access: 'read_write' },
  ] as const;
  const code = `${header(params, bindings)}

${entry1d(wg)}
  if (gid >= P.n) { return; }
  let r = gid / P.D2;
  let w = gid - r * P.D2;
  let local = ids[r] - i32(P.row0);
  if (local < 0 || local >= i32(P.rows)) { return; }
  out[gid] = table[u32(local) * P.D2 + w];
}
`;
  return { key: `embeddingHalfRows:wg${wg}`, code, bindings, params, wg };
}

function buildEmbeddingBackwardProgram(wg: number): WgslProgram {
  const params = { n: 'u32', D: 'u32', row0: 'u32', rows: 'u32' } as const;
  const bindings = [
    { name: 'dout', elem: 'f32', access: 'read' },
    { name: 'uniqueIds', elem: 'i32', access: 'read' },
    { name: 'rowStart', elem: 'i32', access: 'read' },
    { name: 'rowList', elem: 'i32', access: 'read' },
    { name: 'dtable', elem: 'f32', access: 'read_write' },
  ] as const;
  const code = `${header(params, bindings)}

${entry1d(wg)}
  if (gid >= P.n) { return; }
  let u = gid / P.D;
  let d = gid - u * P.D;
  let local = uniqueIds[u] - i32(P.row0);
  if (local < 0 || local >= i32(P.rows)) { return; }
  var acc = 0.0;
  for (var q = rowStart[u]; q < rowStart[u + 1u]; q = q + 1) { acc = acc + dout[u32(rowList[q]) * P.D + d]; }
  let at = u32(local) * P.D + d;
  dtable[at] = dtable[at] + acc;
}
`;
  return { key: `embeddingBackward:wg${wg}`, code, bindings, params, wg };
}

export const embeddingProgram = cached(buildEmbeddingProgram);

export const embeddingHalfRowsProgram = cached(buildEmbeddingHalfRowsProgram);

export const embeddingBackwardProgram = cached(buildEmbeddingBackwardProgram);
