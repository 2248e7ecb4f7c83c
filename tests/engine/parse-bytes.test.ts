// One byte-size parser for what people type (rema plan --memory, the page planner's GPU memory box): decimal and
// binary units up to tera, spaces, and a refusal (null) for anything that is not a positive exact integer.
import { expect, it } from 'vitest';
import { formatBytes, parseBytes } from '../../src/engine/io/model-size.ts';

it('reads plain numbers and decimal and binary units up to tera, in any case', () => {
  expect(parseBytes('4294967296')).toBe(4294967296);
  expect(parseBytes('4GiB')).toBe(4 * 1024 ** 3);
  expect(parseBytes(' 512 MiB ')).toBe(512 * 1024 ** 2);
  expect(parseBytes('8gb')).toBe(8e9);
  expect(parseBytes('1.5 TiB')).toBe(1.5 * 1024 ** 4);
  expect(parseBytes('2TB')).toBe(2e12);
  expect(parseBytes('10 b')).toBe(10);
});

it('refuses empty, negative, zero, unknown units and sizes past the exact integers', () => {
  for (const text of ['', 'GiB', '-1', '0', '4 PiB', '4 gigabytes', '1e3', '9000000 TiB'])
    expect(parseBytes(text), text).toBeNull();
});

it('reads what formatBytes writes for whole units', () => {
  for (const bytes of [512, 3 * 1024, 7 * 1024 ** 2, 2 * 1024 ** 4])
    expect(parseBytes(formatBytes(bytes).replace('.0', ''))).toBe(bytes);
});
