// The meta-action JSON grammar (src/rl/protocol/json-actions): the character FSM accepts exactly the documented
// form, and the token mask built on real tokenizers (the embedded tiny model's, the Qwen2.5 and SmolLM2 fixtures)
// always yields a complete, valid answer when every draw is masked: random logits at several temperatures, the CPU
// twin of the `sample` kernel, any length cap down to the shortest answer.
import { describe, expect, it } from 'vitest';
import { directoryFileSource } from '../../../../src/cli/fs-source.ts';
import { loadHfTokenizer } from '../../../../src/data/hf-tokenizer.ts';
import type { ChatTokenizer } from '../../../../src/data/tokenizer.ts';
import { sampleToken } from '../../../../src/engine/sampling.ts';
import {
  ActionGrammar,
  META_ACTIONS,
  REJECT,
  formatMetaAction,
  parseMetaAction,
} from '../../../../src/rl/protocol/json-actions/grammar.ts';
import { ActionTokenMask, tokenTexts } from '../../../../src/rl/protocol/json-actions/token-mask.ts';
import { Rng } from '../../../../src/util/rng.ts';

const g = new ActionGrammar();
const accepts = (text: string) => g.isAccepting(g.walk(g.start, text));

describe('meta-action grammar (characters)', () => {
  it('formatMetaAction writes answers the grammar accepts and parseMetaAction reads back', () => {
    const outputs = ['', 'Add 3.', 'quote " and \\ back\\slash', 'line\nbreak\ttab', 'ctrl \u0001 and é, 𝑥'];
    for (const action of META_ACTIONS)
      for (const output of outputs) {
        const text = formatMetaAction({ action, output });
        expect(accepts(text)).toBe(true);
        expect(parseMetaAction(text)).toEqual({ action, output });
      }
  });

  it('accepts the documented form with every action and JSON escape, and JSON.parse agrees', () => {
    const good = [
      '{"action": "EMPTY", "output": ""}',
      '{"action": "DECOMPOSE", "output": "First find x, then y."}',
      '{"action": "REWRITE", "output": "a \\"quoted\\" \\\\ \\/ \\b\\f\\n\\r\\t \\u00e9\\uD83D\\uDE00 é 😀"}',
    ];
    for (const t of good) {
      expect(accepts(t), t).toBe(true);
      const parsed = parseMetaAction(t);
      expect(parsed, t).toEqual(JSON.parse(t));
    }
    expect(META_ACTIONS).toEqual(['DECOMPOSE', 'REWRITE', 'EMPTY']);
  });

  it('rejects other whitespace, key orders, actions, raw control characters, bad escapes and trailing text', () => {
    const bad = [
      '{"action":"EMPTY", "output": ""}',
      '{ "action": "EMPTY", "output": ""}',
      '{"action": "EMPTY",  "output": ""}',
      '{"output": "", "action": "EMPTY"}',
      '{"action": "EMPT", "output": ""}',
      '{"action": "EMPTYY", "output": ""}',
      '{"action": "empty", "output": ""}',
      '{"action": "EMPTY", "output": "a\nb"}',
      '{"action": "EMPTY", "output": "\\x"}',
      '{"action": "EMPTY", "output": "\\u12g4"}',
      '{"action": "EMPTY", "output": ""} ',
      '{"action": "EMPTY", "output": ""}}',
    ];
    for (const t of bad) {
      expect(accepts(t), JSON.stringify(t)).toBe(false);
      expect(parseMetaAction(t)).toBeNull();
    }
    // prefixes of a valid answer are alive but not accepting
    const full = '{"action": "REWRITE", "output": "x"}';
    for (let i = 0; i < full.length; i++) {
      const s = g.walk(g.start, full.slice(0, i));
      expect(s).not.toBe(REJECT);
      expect(g.isAccepting(s)).toBe(false);
      expect(g.distance[s]).toBeGreaterThanOrEqual(1);
    }
  });

  it('distance is the length of the shortest completion', () => {
    expect(g.distance[g.start]).toBe('{"action": "EMPTY", "output": ""}'.length);
    expect(g.distance[g.walk(g.start, '{"action": "D')]).toBe('ECOMPOSE", "output": ""}'.length);
    expect(g.distance[g.walk(g.start, '{"action": "EMPTY", "output": "ab\\')]).toBe(3);
    expect(g.distance[g.walk(g.start, '{"action": "EMPTY", "output": "\\u0')]).toBe(5);
  });
});

const TOKENIZERS: Array<[string, string]> = [
  ['tiny-rema', 'public/models/tiny-rema'],
  ['qwen2.5 fixture', 'tests/fixtures/hf/tiny-qwen2.5-instruct'],
  ['smollm2 fixture', 'tests/fixtures/hf/tiny-smollm2-instruct'],
];

const bit = (m: Uint32Array, id: number) => (m[id >>> 5] >>> (id & 31)) & 1;

/** Draw under the mask until an end id (or the cap) with the host twin of the sample kernel. */
function decode(
  mask: ActionTokenMask,
  tok: ChatTokenizer,
  V: number,
  rng: Rng,
  temperature: number,
  cap: number,
  seed: number,
) {
  const generated: number[] = [];
  for (let step = 0; step < cap; step++) {
    const logits = Float32Array.from({ length: V }, () => 4 * rng.normal());
    const allowed = mask.allowed(generated, cap);
    const id = sampleToken(logits, { temperature, topK: 0, topP: 1, seed }, 0, step, allowed);
    expect((allowed[id >>> 5] >>> (id & 31)) & 1, `step ${step}: drew a masked id`).toBe(1);
    if (tok.stopTokenIds.includes(id)) return { text: tok.decode(generated), ended: true, tokens: generated.length };
    generated.push(id);
  }
  return { text: tok.decode(generated), ended: false, tokens: generated.length };
}

describe('meta-action token mask on real tokenizers', () => {
  for (const [name, dir] of TOKENIZERS) {
    it(`${name}: random logits at T = 0, 0.7, 1, 3 always give a complete valid answer within the cap`, async () => {
      const tok = await loadHfTokenizer(directoryFileSource(dir));
      const V = tok.vocabSize + 7; // a model's padded vocabulary: the extra ids are never allowed
      const mask = ActionTokenMask.forTokenizer(tok, V);
      const rng = new Rng(42);
      const seen = new Set<string>();
      let trial = 0;
      for (const temperature of [0, 0.7, 1, 3]) {
        for (const cap of [34, 40, 64, 200]) {
          const r = decode(mask, tok, V, rng, temperature, cap, ++trial);
          expect(r.ended, `T=${temperature} cap ${cap}: ended with an end id`).toBe(true);
          expect(r.tokens).toBeLessThan(cap);
          const parsed = parseMetaAction(r.text);
          expect(parsed, `T=${temperature} cap ${cap}: ${r.text}`).not.toBeNull();
          expect(JSON.parse(r.text)).toEqual(parsed);
          seen.add(parsed!.action);
        }
      }
      expect(seen.size, 'random logits reach more than one action').toBeGreaterThan(1);
    });
  }

  it('end ids only in the accepting state, special ids never, every token of a valid answer allowed', async () => {
    const tok = await loadHfTokenizer(directoryFileSource('public/models/tiny-rema'));
    const V = tok.vocabSize;
    const mask = ActionTokenMask.forTokenizer(tok, V);
    const answer = tok.encode('{"action": "EMPTY", "output": "x"}');
    for (let k = 0; k <= answer.length; k++) {
      const m = mask.allowed(answer.slice(0, k), 200);
      for (const id of tok.stopTokenIds)
        expect(bit(m, id), `end id ${id} after ${k} tokens`).toBe(k === answer.length ? 1 : 0);
      for (const id of tok.addedTokenIds ?? []) if (!tok.stopTokenIds.includes(id)) expect(bit(m, id)).toBe(0);
      if (k < answer.length) expect(bit(m, answer[k]), `token ${k} of the answer`).toBe(1);
    }
    const texts = tokenTexts(tok, V);
    expect(texts.filter((t) => t === null).length).toBeGreaterThanOrEqual((tok.addedTokenIds ?? []).length);
  });

  it('a tokenizer without single-character tokens for the structure is refused, naming the characters', () => {
    const texts = ['{"action": "', 'EMPTY', '", "output": "', '"}', 'a'];
    expect(() => new ActionTokenMask(texts, [4])).toThrow(/no single-character token for .*"\{"/);
  });
});
