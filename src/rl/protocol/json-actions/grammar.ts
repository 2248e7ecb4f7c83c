// The meta-action JSON answer (paper Sec. 4.2.2, App. G.1.1) as a character-level finite-state machine: the
// constrained decoder (./token-mask.ts) walks token strings through it, so the meta-thinking agent can only write
//   {"action": "DECOMPOSE" | "REWRITE" | "EMPTY", "output": "<JSON string>"}
// Exact form accepted (kept small on purpose; the paper's example answers have this shape):
// - the keys in this order, with exactly one space after each ':' and after the ',', and no other whitespace
//   outside the string: `{"action": "EMPTY", "output": ""}` is the shortest answer (33 characters);
// - the output string: any character from U+0020 up except '"' and '\', or an escape: \" \\ \/ \b \f \n \r \t
//   or \u followed by 4 hex digits (JSON's escapes; raw control characters such as a newline are not JSON);
// - nothing after the closing '}' (the end-of-turn token is allowed only there).
// Every accepted text is valid JSON that JSON.parse reads as { action, output }.

export const META_ACTIONS = ['DECOMPOSE', 'REWRITE', 'EMPTY'] as const;
export type MetaAction = (typeof META_ACTIONS)[number];

/** A parsed meta-action answer. */
export interface MetaActionAnswer {
  action: MetaAction;
  output: string;
}

const PREFIX = '{"action": "';
const MIDDLE = '", "output": "';
const HEX = /^[0-9a-fA-F]$/;
const SIMPLE_ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

/** A rejected transition. */
export const REJECT = -1;

/**
 * The states, numbered: the literal prefix (one state per expected character), the action names (one state per
 * trie node: after the prefix, the characters of an action name so far), the literal middle, then the string body,
 * an escape, the 4 hex digits of \u, the closing '}' and the accepting state.
 */
export class ActionGrammar {
  readonly start = 0;
  readonly accept: number;
  /** states whose next character is fixed or one of a few (literal and action-name states): char -> next state */
  private readonly fixed: Array<Map<string, number>> = [];
  private readonly body: number;
  private readonly escape: number;
  /** hex[k]: k hex digits of a \u escape still to read (k = 1..4) */
  private readonly hex: number[];
  private readonly close: number;
  /** fewest characters from each state to the accepting state */
  readonly distance: Int32Array;

  constructor() {
    const fixed = this.fixed;
    const fresh = () => fixed.push(new Map()) - 1;
    let s = fresh();
    for (const ch of PREFIX) {
      const n = fresh();
      fixed[s].set(ch, n);
      s = n;
    }
    // action names: a trie from `s`; every name ends in the first state of the middle literal
    const afterName = fresh();
    for (const name of META_ACTIONS) {
      let t = s;
      for (let i = 0; i < name.length; i++) {
        const ch = name[i];
        const last = i === name.length - 1;
        let n = fixed[t].get(ch);
        if (n === undefined) {
          n = last ? afterName : fresh();
          fixed[t].set(ch, n);
        }
        t = n;
      }
    }
    // afterName expects MIDDLE[0] = '"'
    s = afterName;
    for (const ch of MIDDLE) {
      const n = fresh();
      fixed[s].set(ch, n);
      s = n;
    }
    this.body = s; // inside the output string
    this.escape = fresh();
    this.hex = [-1, fresh(), fresh(), fresh(), fresh()];
    this.close = fresh();
    this.accept = fresh();
    this.distance = this.computeDistances();
  }

  get stateCount(): number {
    return this.fixed.length;
  }

  isAccepting(state: number): boolean {
    return state === this.accept;
  }

  /** The state after reading character `ch` (one UTF-16 code unit or a surrogate pair) in `state`, or REJECT. */
  step(state: number, ch: string): number {
    if (state < 0) return REJECT;
    if (state === this.body) {
      if (ch === '"') return this.close;
      if (ch === '\\') return this.escape;
      return ch.charCodeAt(0) >= 0x20 ? this.body : REJECT;
    }
    if (state === this.escape) {
      if (SIMPLE_ESCAPES.has(ch)) return this.body;
      return ch === 'u' ? this.hex[4] : REJECT;
    }
    const k = this.hex.indexOf(state);
    if (k > 0) return HEX.test(ch) ? (k === 1 ? this.body : this.hex[k - 1]) : REJECT;
    if (state === this.close) return ch === '}' ? this.accept : REJECT;
    if (state === this.accept) return REJECT;
    return this.fixed[state].get(ch) ?? REJECT;
  }

  /** The state after reading all of `text` from `state` (REJECT once any character is rejected). */
  walk(state: number, text: string): number {
    for (const ch of text) {
      state = this.step(state, ch);
      if (state === REJECT) return REJECT;
    }
    return state;
  }

  /** Every character a shortest completion from some state needs (the constrained decoder checks that each is a
   *  token of its own, so a completion always fits the remaining token budget). */
  completionCharacters(): string[] {
    const chars = new Set<string>([...PREFIX, ...MIDDLE, ...META_ACTIONS.join(''), '"', '}', 'n', '0']);
    return [...chars];
  }

  private computeDistances(): Int32Array {
    const n = this.fixed.length;
    const d = new Int32Array(n).fill(1 << 30);
    d[this.accept] = 0;
    // a few representative characters cover every transition's target
    const probe = [...new Set([...PREFIX, ...MIDDLE, ...META_ACTIONS.join(''), '"', '\\', '}', 'a', 'n', 'u', '0'])];
    for (let changed = true; changed;) {
      changed = false;
      for (let s = 0; s < n; s++) {
        for (const ch of probe) {
          const t = this.step(s, ch);
          if (t !== REJECT && d[t] + 1 < d[s]) {
            d[s] = d[t] + 1;
            changed = true;
          }
        }
      }
    }
    return d;
  }
}

/**
 * The (action, output) of a meta-thinking message, or null when the text is not an answer the grammar accepts
 * (a message cut by the length cap).
 */
export function parseMetaAction(text: string, grammar: ActionGrammar = defaultGrammar()): MetaActionAnswer | null {
  if (!grammar.isAccepting(grammar.walk(grammar.start, text))) return null;
  const v = JSON.parse(text) as { action: MetaAction; output: string };
  return { action: v.action, output: v.output };
}

let shared: ActionGrammar | null = null;
export function defaultGrammar(): ActionGrammar {
  return (shared ??= new ActionGrammar());
}

/** The answer text the grammar accepts for an action and its output (JSON.stringify's escapes are all accepted;
 *  raw control characters in the output become \n, \t, \uXXXX escapes). parseMetaAction reads it back. */
export function formatMetaAction(answer: MetaActionAnswer): string {
  return `{"action": "${answer.action}", "output": ${JSON.stringify(answer.output)}}`;
}
