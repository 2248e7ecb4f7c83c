// Conversions between 16-bit floats (IEEE half "F16" and bfloat16 "BF16") and float32, as stored in
// safetensors checkpoints. Decoding is exact (every half and bfloat16 value is a float32); encoding rounds to
// nearest, ties to even, the same as torch's `.half()` / `.bfloat16()`.

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

let halfTable: Float32Array | null = null;

/** float32 value of one IEEE half bit pattern (sign 1, exponent 5, mantissa 10). */
export function halfBitsToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const mantissa = h & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24; // zero and subnormals
  if (exponent === 0x1f) return mantissa === 0 ? sign * Infinity : NaN;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

/** All 65536 half values, built once (256 KiB) so decoding a checkpoint is one table lookup per element. */
function getHalfTable(): Float32Array {
  if (halfTable === null) {
    halfTable = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) halfTable[h] = halfBitsToFloat(h);
  }
  return halfTable;
}

export function decodeF16(bits: Uint16Array): Float32Array {
  const table = getHalfTable();
  const out = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i++) out[i] = table[bits[i]];
  return out;
}

/** bfloat16 is the top half of a float32: shift the bits up. */
export function decodeBF16(bits: Uint16Array): Float32Array {
  const out = new Float32Array(bits.length);
  const outBits = new Uint32Array(out.buffer);
  for (let i = 0; i < bits.length; i++) outBits[i] = bits[i] << 16;
  return out;
}

/** bfloat16 bits of a number, rounded to nearest even (NaN stays a quiet NaN). */
export function floatToBF16Bits(x: number): number {
  f32[0] = x;
  const b = u32[0];
  if ((b & 0x7f800000) === 0x7f800000 && (b & 0x007fffff) !== 0) return ((b >>> 16) | 0x0040) & 0xffff;
  const roundingBias = 0x7fff + ((b >>> 16) & 1);
  return ((b + roundingBias) >>> 16) & 0xffff;
}

/** IEEE half bits of a number, rounded to nearest even; overflow gives infinity, tiny values subnormals or 0. */
export function floatToHalfBits(x: number): number {
  f32[0] = x;
  const b = u32[0];
  const sign = (b >>> 16) & 0x8000;
  const exponent = (b >>> 23) & 0xff;
  const mantissa = b & 0x007fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa !== 0 ? 0x0200 : 0);
  const halfExponent = exponent - 127 + 15;
  if (halfExponent >= 0x1f) return sign | 0x7c00;
  if (halfExponent <= 0) {
    // subnormal half (or zero): value = m · 2^-24 with m = round(|x| · 2^24)
    if (halfExponent < -10) return sign;
    const full = mantissa | 0x00800000; // 24-bit significand
    const shift = 14 - halfExponent; // bits to drop: 13 + (1 - halfExponent)
    const kept = full >>> shift;
    const rest = full & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    const rounded = rest > half || (rest === half && (kept & 1) === 1) ? kept + 1 : kept;
    return sign | rounded; // rounding up into the normal range carries into the exponent correctly
  }
  const kept = (halfExponent << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  const rounded = rest > 0x1000 || (rest === 0x1000 && (kept & 1) === 1) ? kept + 1 : kept;
  return sign | rounded; // a carry into exponent 0x1f gives infinity, as it should
}

export function encodeF16(values: ArrayLike<number>): Uint16Array {
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = floatToHalfBits(values[i]);
  return out;
}

export function encodeBF16(values: ArrayLike<number>): Uint16Array {
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = floatToBF16Bits(values[i]);
  return out;
}
