// Reusable scratch memory for the CPU kernels: hot loops never allocate. A kernel asks for a buffer of at least
// n floats under its own key; the buffer grows (doubling) only when a larger call arrives, then stays.
// Single-threaded JavaScript makes this safe as long as a kernel does not call itself recursively with the same key.

const pools = new Map<string, Float32Array>();

/** A Float32Array of at least n elements, owned by `key`; contents are unspecified (stale from earlier calls). */
export function scratchF32(key: string, n: number): Float32Array {
  let buf = pools.get(key);
  if (!buf || buf.length < n) {
    let size = Math.max(256, buf ? buf.length : 0);
    while (size < n) size *= 2;
    buf = new Float32Array(size);
    pools.set(key, buf);
  }
  return buf;
}

/** Float64 flavour, for accumulators that want the extra precision (e.g. per-row statistics). */
const pools64 = new Map<string, Float64Array>();
export function scratchF64(key: string, n: number): Float64Array {
  let buf = pools64.get(key);
  if (!buf || buf.length < n) {
    let size = Math.max(256, buf ? buf.length : 0);
    while (size < n) size *= 2;
    buf = new Float64Array(size);
    pools64.set(key, buf);
  }
  return buf;
}
