// FNV-1a (src/util/fnv1a.ts) against the published 32-bit test vectors (Fowler / Noll / Vo).
import { describe, expect, it } from 'vitest';
import { fnv1a, fnv1aHex } from '../../src/util/fnv1a.ts';

describe('fnv1a', () => {
  it('gives the reference hashes', () => {
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(fnv1a('foobar')).toBe(0xbf9cf968);
    expect(fnv1aHex('')).toBe('811c9dc5');
  });
});
