// FNV-1a, 32 bits, over a string's UTF-16 code units: a small stable hash for ids and keys that must not change
// between runs or machines (the tiny task's train / held-out split, an ablation's id, the auto backend's cache key).

export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** fnv1a as 8 hex digits. */
export function fnv1aHex(text: string): string {
  return fnv1a(text).toString(16).padStart(8, '0');
}
