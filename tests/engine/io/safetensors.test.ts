// safetensors reader/writer: round trips, exact 16-bit float conversion, and a clear error for each kind of
// corrupt file (the message must name the file and the problem).
import { describe, expect, it } from 'vitest';
import {
  decodeBF16,
  decodeF16,
  encodeBF16,
  encodeF16,
  floatToBF16Bits,
  floatToHalfBits,
  halfBitsToFloat,
} from '../../../src/engine/io/half-float.ts';
import { decodeFiniteFloat32 } from '../../../src/engine/io/finite.ts';
import {
  parseSafetensors,
  readSafetensorsHeader,
  toFloat32,
  writeSafetensors,
} from '../../../src/engine/io/safetensors.ts';

/** Build a file by hand from a header object and a data block (to make corrupt files the writer refuses to). */
function handMade(header: unknown, data: Uint8Array, rawJson?: string): Uint8Array {
  const json = new TextEncoder().encode(rawJson ?? JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  out.set(data, 8 + json.length);
  return out;
}

/** Independent reference for IEEE half: (-1)^s 2^(e-15) (1 + m/1024), subnormal 2^-14 (m/1024). */
function halfReference(h: number): number {
  const s = h >> 15 ? -1 : 1;
  const e = (h >> 10) & 31;
  const m = h & 1023;
  if (e === 31) return m ? NaN : s * Infinity;
  return e === 0 ? s * Math.pow(2, -14) * (m / 1024) : s * Math.pow(2, e - 15) * (1 + m / 1024);
}

describe('safetensors round trip', () => {
  it('writes and reads back F32, F64, I64, I32, F16, BF16 with shapes and metadata', () => {
    const f32 = Float32Array.from({ length: 6 }, (_, i) => Math.fround(i * 0.37 - 1));
    const f64 = [Math.PI, -Math.E, 1e-300, 12345.6789];
    const i64 = [0, -1, 2 ** 40 + 3, Number.MAX_SAFE_INTEGER];
    const bytes = writeSafetensors(
      {
        'model.embed_tokens.weight': { dtype: 'F32', shape: [2, 3], data: f32 },
        logits: { dtype: 'F64', shape: [2, 2], data: f64 },
        input_ids: { dtype: 'I64', shape: [4], data: i64 },
        counts: { dtype: 'I32', shape: [3], data: [7, -8, 9] },
        half: { dtype: 'F16', shape: [3], data: [1, -2.5, 65504] },
        brain: { dtype: 'BF16', shape: [1, 2], data: [1.5, -3] },
        empty: { dtype: 'F32', shape: [0, 4], data: [] },
      },
      { format: 'pt' },
    );
    const headerLength = Number(new DataView(bytes.buffer).getBigUint64(0, true));
    expect(headerLength % 8).toBe(0);
    const { tensors, metadata } = parseSafetensors(bytes, 'rt.safetensors');
    expect(metadata).toEqual({ format: 'pt' });
    expect(tensors.get('model.embed_tokens.weight')).toEqual({ dtype: 'F32', shape: [2, 3], data: f32 });
    expect(tensors.get('logits')!.data).toEqual(Float64Array.from(f64));
    expect(tensors.get('input_ids')!.data).toEqual(i64);
    expect(tensors.get('counts')!.data).toEqual(Int32Array.from([7, -8, 9]));
    expect([...tensors.get('half')!.data]).toEqual([1, -2.5, 65504]);
    expect(tensors.get('brain')).toMatchObject({ dtype: 'BF16', shape: [1, 2] });
    expect([...tensors.get('brain')!.data]).toEqual([1.5, -3]);
    expect(tensors.get('empty')!.shape).toEqual([0, 4]);
    // every tensor starts at an absolute offset aligned to its element size
    for (const [, e] of readSafetensorsHeader(bytes, 'rt.safetensors').entries) {
      const size = { F64: 8, I64: 8, F32: 4, I32: 4, F16: 2, BF16: 2 }[e.dtype];
      expect(e.begin % size).toBe(0);
    }
  });

  it('reads a file whose header was written by Python (HF layout with space padding)', () => {
    // header as written by safetensors' Python serializer: compact JSON, padded with spaces
    const data = new Uint8Array(new Float32Array([0.5, -0.25]).buffer);
    const json = '{"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}';
    const padded = json + ' '.repeat((8 - (json.length % 8)) % 8);
    const parsed = parseSafetensors(handMade(null, data, padded), 'py.safetensors');
    expect([...parsed.tensors.get('w')!.data]).toEqual([0.5, -0.25]);
  });

  it('toFloat32 widens halves and narrows F64 but refuses integer tensors', () => {
    const bytes = writeSafetensors({
      a: { dtype: 'F64', shape: [1], data: [0.1] },
      ids: { dtype: 'I64', shape: [1], data: [3] },
    });
    const { tensors } = parseSafetensors(bytes, 'x.safetensors');
    expect(toFloat32(tensors.get('a')!, 'x.safetensors', 'a')[0]).toBe(Math.fround(0.1));
    expect(() => toFloat32(tensors.get('ids')!, 'x.safetensors', 'ids')).toThrow(/x\.safetensors.*"ids".*I64/);
  });
});

describe('safetensors read from a Node Buffer view', () => {
  it('a file inside a larger Buffer at any offset decodes its own bytes (Buffer.slice is a view, not a copy)', () => {
    const bytes = writeSafetensors({
      f32: { dtype: 'F32', shape: [3], data: [1.5, -2, 3.25] },
      f16: { dtype: 'F16', shape: [3], data: [0.5, -4, 7] },
      bf16: { dtype: 'BF16', shape: [2], data: [2, -0.75] },
    });
    for (const offset of [0, 1, 3, 8]) {
      const pool = Buffer.alloc(offset + bytes.length + 5, 0xff);
      pool.set(bytes, offset);
      const view = pool.subarray(offset, offset + bytes.length); // a Buffer: its slice() shares memory
      const { tensors } = parseSafetensors(view, 'view.safetensors');
      expect(Array.from(tensors.get('f32')!.data)).toEqual([1.5, -2, 3.25]);
      expect(Array.from(tensors.get('f16')!.data)).toEqual([0.5, -4, 7]);
      expect(Array.from(tensors.get('bf16')!.data)).toEqual([2, -0.75]);
      const { entries } = readSafetensorsHeader(view, 'view.safetensors');
      for (const [name, want] of [
        ['f16', [0.5, -4, 7]],
        ['bf16', [2, -0.75]],
      ] as const)
        expect(Array.from(decodeFiniteFloat32(view, entries.get(name)!, 'view.safetensors', name))).toEqual(want);
    }
  });
});

describe('16-bit float conversion', () => {
  it('decodes every one of the 65536 half bit patterns exactly', () => {
    const all = Uint16Array.from({ length: 65536 }, (_, i) => i);
    const decoded = decodeF16(all);
    const wrong: number[] = [];
    for (let h = 0; h < 65536; h++) {
      const ref = halfReference(h);
      const same = (x: number) => (Number.isNaN(ref) ? Number.isNaN(x) : Object.is(x, ref));
      if (!same(decoded[h]) || !same(halfBitsToFloat(h))) wrong.push(h);
    }
    expect(wrong).toEqual([]);
  });

  it('re-encodes every non-NaN half and bfloat16 value to the same bits', () => {
    const all = Uint16Array.from({ length: 65536 }, (_, i) => i);
    const half = decodeF16(all);
    const brain = decodeBF16(all);
    const wrong: string[] = [];
    for (let h = 0; h < 65536; h++) {
      if (!Number.isNaN(half[h]) && floatToHalfBits(half[h]) !== h) wrong.push(`f16 ${h}`);
      if (!Number.isNaN(brain[h]) && floatToBF16Bits(brain[h]) !== h) wrong.push(`bf16 ${h}`);
      if (Number.isNaN(brain[h]) && !Number.isNaN(decodeBF16(Uint16Array.of(floatToBF16Bits(brain[h])))[0]))
        wrong.push(`bf16 NaN ${h}`);
    }
    expect(wrong).toEqual([]);
  });

  it('bfloat16 decoding is the top 16 bits of the float32', () => {
    const x = new Float32Array([1.5, -2.75, 3.140625]);
    const bits = new Uint32Array(x.buffer);
    expect([...decodeBF16(Uint16Array.from(bits, (b) => b >>> 16))]).toEqual([1.5, -2.75, 3.140625]);
  });

  it('rounds to nearest with ties to even, overflow to infinity, underflow to subnormals and zero', () => {
    // halfway between 1 and the next half (1 + 2^-10): ties to even -> 1; a bit above -> up
    expect(halfBitsToFloat(floatToHalfBits(1 + 2 ** -11))).toBe(1);
    expect(halfBitsToFloat(floatToHalfBits(1 + 3 * 2 ** -11))).toBe(1 + 2 * 2 ** -10);
    expect(halfBitsToFloat(floatToHalfBits(1 + 2 ** -11 + 2 ** -20))).toBe(1 + 2 ** -10);
    expect(halfBitsToFloat(floatToHalfBits(65520))).toBe(Infinity); // 65504 + half ulp rounds up to inf
    expect(halfBitsToFloat(floatToHalfBits(65519))).toBe(65504);
    expect(halfBitsToFloat(floatToHalfBits(2 ** -25))).toBe(0); // tie between 0 and the smallest subnormal -> 0
    expect(halfBitsToFloat(floatToHalfBits(3 * 2 ** -25))).toBe(2 ** -23); // tie -> even (2 · 2^-24)
    expect(halfBitsToFloat(floatToHalfBits(-(2 ** -14) * 0.75))).toBe(-(2 ** -14) * 0.75);
    // largest subnormal + more than half an ulp rounds into the smallest normal
    expect(halfBitsToFloat(floatToHalfBits(2 ** -14 - 2 ** -26))).toBe(2 ** -14);
    // bfloat16: 1 + 2^-8 is a tie between 1 and 1 + 2^-7 -> 1 (even); 1 + 3·2^-8 -> 1 + 2^-6
    expect(decodeBF16(encodeBF16([1 + 2 ** -8]))[0]).toBe(1);
    expect(decodeBF16(encodeBF16([1 + 3 * 2 ** -8]))[0]).toBe(1 + 2 ** -6);
    expect([...decodeF16(encodeF16([Infinity, -Infinity, -0]))]).toEqual([Infinity, -Infinity, -0]);
  });
});

describe('safetensors errors name the file and the problem', () => {
  const good = writeSafetensors({ w: { dtype: 'F32', shape: [2, 2], data: [1, 2, 3, 4] } });
  const f32Data = new Uint8Array(16);

  it('truncated before the header length', () => {
    expect(() => parseSafetensors(new Uint8Array(5), 'tiny.safetensors')).toThrow(
      /tiny\.safetensors: truncated.*5 bytes/,
    );
  });
  it('header length past the end of the file', () => {
    expect(() => parseSafetensors(good.subarray(0, 20), 'cut.safetensors')).toThrow(
      /cut\.safetensors: truncated.*header length \d+ runs past the end/,
    );
  });
  it('data cut short (offsets past the data block)', () => {
    expect(() => parseSafetensors(good.subarray(0, good.length - 4), 'short.safetensors')).toThrow(
      /short\.safetensors: tensor "w": data_offsets \[0, 16\] out of range \(data block is 12 bytes/,
    );
  });
  it('invalid JSON header', () => {
    expect(() => parseSafetensors(handMade(null, f32Data, '{"w": {"dtype": "F32",'), 'bad.safetensors')).toThrow(
      /bad\.safetensors: invalid JSON/,
    );
    expect(() => parseSafetensors(handMade([1, 2], f32Data), 'arr.safetensors')).toThrow(
      /arr\.safetensors: .*not a JSON object/,
    );
  });
  it('unknown dtype', () => {
    const h = { w: { dtype: 'F8_E4M3', shape: [4], data_offsets: [0, 4] } };
    expect(() => parseSafetensors(handMade(h, f32Data), 'f8.safetensors')).toThrow(
      /f8\.safetensors: tensor "w": unsupported dtype "F8_E4M3"/,
    );
  });
  it('shape times dtype size differs from the byte length', () => {
    const h = { w: { dtype: 'F32', shape: [3], data_offsets: [0, 16] } };
    expect(() => parseSafetensors(handMade(h, f32Data), 'shape.safetensors')).toThrow(
      /shape\.safetensors: tensor "w": shape \[3\] x F32 needs 12 bytes but data_offsets span 16/,
    );
  });
  it('overlapping tensors', () => {
    const h = {
      a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] },
      b: { dtype: 'F32', shape: [2], data_offsets: [4, 12] },
    };
    expect(() => parseSafetensors(handMade(h, f32Data), 'lap.safetensors')).toThrow(
      /lap\.safetensors: tensors "a" and "b" have overlapping/,
    );
  });
  it('malformed shape or offsets', () => {
    const h1 = { w: { dtype: 'F32', shape: [-1], data_offsets: [0, 4] } };
    expect(() => parseSafetensors(handMade(h1, f32Data), 'neg.safetensors')).toThrow(
      /neg\.safetensors: tensor "w": shape \[-1\]/,
    );
    const h2 = { w: { dtype: 'F32', shape: [1], data_offsets: [8, 4] } };
    expect(() => parseSafetensors(handMade(h2, f32Data), 'rev.safetensors')).toThrow(
      /rev\.safetensors: tensor "w": data_offsets \[8, 4\] out of range/,
    );
  });
  it('writer refuses data that does not match the shape', () => {
    expect(() => writeSafetensors({ w: { dtype: 'F32', shape: [2, 2], data: [1, 2, 3] } })).toThrow(
      /"w".*4 elements but data has 3/,
    );
  });
});
