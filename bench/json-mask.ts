// How long the meta-action grammar's token mask (src/rl/protocol/json-actions/token-mask.ts) takes at Qwen2.5's
// vocabulary size, V = 151,936: building the sorted walk, each grammar state's first mask (cold: the walk over every
// token text) and the cached masks of a whole constrained answer (what the sampler asks for at each step).
// The vocabulary is synthetic (no Qwen tokenizer ships here): every printable ASCII character, then word pieces of
// 2-12 letters with and without a leading space, digit runs, punctuation runs and some non-ASCII words, with
// Qwen-like lengths. Run: npx tsx bench/json-mask.ts [--vocab N]
import { ActionTokenMask } from '../src/rl/protocol/json-actions/token-mask.ts';
import { Rng } from '../src/util/rng.ts';

const at = process.argv.indexOf('--vocab');
const V = at > 0 ? Number(process.argv[at + 1]) : 151936;
const rng = new Rng(1);
const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const punct = '.,;:!?()[]{}"\'\\/-_=+*&^%$#@<>|`~';
const seen = new Set<string>();
const texts: Array<string | null> = [];
for (let c = 0x20; c < 0x7f; c++) {
  texts.push(String.fromCharCode(c));
  seen.add(String.fromCharCode(c));
}
texts.push('\n', '\t', '\n\n');
while (texts.length < V - 20) {
  const kind = rng.next();
  let t: string;
  if (kind < 0.8) {
    const n = 2 + Math.floor(rng.next() * 11);
    t =
      (rng.next() < 0.6 ? ' ' : '') +
      Array.from({ length: n }, () => letters[Math.floor(rng.next() * letters.length)]).join('');
  } else if (kind < 0.88)
    t = Array.from({ length: 1 + Math.floor(rng.next() * 3) }, () => String(Math.floor(rng.next() * 10))).join('');
  else if (kind < 0.96)
    t =
      (rng.next() < 0.3 ? ' ' : '') +
      Array.from({ length: 1 + Math.floor(rng.next() * 4) }, () => punct[Math.floor(rng.next() * punct.length)]).join(
        '',
      );
  else
    t =
      ' ' +
      Array.from({ length: 2 + Math.floor(rng.next() * 4) }, () =>
        String.fromCharCode(0x4e00 + Math.floor(rng.next() * 2000)),
      ).join('');
  if (seen.has(t)) continue;
  seen.add(t);
  texts.push(t);
}
while (texts.length < V - 1) texts.push(null); // special tokens
texts.push(null); // the end-of-turn id
const END = V - 1;

const time = <T>(f: () => T): [T, number] => {
  const t0 = performance.now();
  const r = f();
  return [r, performance.now() - t0];
};

const [mask, build] = time(() => new ActionTokenMask(texts, [END]));
// an answer written a token at a time: the structure in single characters, the output in word pieces
const idOf = new Map(texts.map((t, i) => [t, i]));
const ids = (s: string) => [...s].map((c) => idOf.get(c)!);
const words = texts
  .map((t, i) => [t, i] as const)
  .filter(([t]) => t !== null && /^ [a-z]+$/.test(t))
  .slice(0, 150)
  .map(([, i]) => i);
const answer = [...ids('{"action": "DECOMPOSE", "output": "'), ...words, ...ids('"}')];
const cap = answer.length + 10;
let cold = 0;
let coldCalls = 0;
for (let k = 0; k <= answer.length; k++) {
  const [, ms] = time(() => mask.allowed(answer.slice(0, k), cap));
  cold += ms;
  coldCalls++;
}
const [, warm] = time(() => {
  for (let k = 0; k <= answer.length; k++) mask.allowed(answer.slice(0, k), cap);
});
const fresh = new ActionTokenMask(texts, [END]);
const [, bodyCold] = time(() => fresh.maskFor(fresh.stateAfter(ids('{"action": "EMPTY", "output": "')), 1000));
console.log(`meta-action token mask, V = ${V} (${mask.words} words per mask)`);
console.log(`  build (sort + common prefixes):            ${build.toFixed(1)} ms`);
console.log(
  `  one answer of ${answer.length} tokens, cold (every state's first walk): ${cold.toFixed(1)} ms (${(cold / coldCalls).toFixed(2)} ms per draw)`,
);
console.log(
  `  the same answer again, warm (cached masks):  ${warm.toFixed(1)} ms (${(warm / coldCalls).toFixed(3)} ms per draw, incl. re-walking the prefix)`,
);
console.log(`  the string body state alone, cold (its walk over every token text): ${bodyCold.toFixed(1)} ms`);
