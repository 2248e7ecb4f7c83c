// Test helper: a Policy whose generate() answers call k with fixed texts (one per request, or the last one for the
// rest), encoded by the embedded model's real tokenizer, for rollout tests that need the agents to say chosen things
// (a random model cannot be made to say [FINISH] on cue). Only generate() is scripted; score() rejects.
import type {
  Generation,
  GenerationFinish,
  GenerateRequest,
  Policy,
  SamplingParams,
} from '../../../src/engine/policy/policy.ts';
import type { ChatTokenizer } from '../../../src/data/tokenizer.ts';

/** A reply: its text, how it ended and the ids sampled for it (default: the tokenizer's encoding of the text). */
export type Reply = { text: string; finish?: GenerationFinish; tokens?: number[] };

export type ScriptedPolicy = Policy & { calls: { requests: readonly GenerateRequest[]; sampling: SamplingParams }[] };

/** replies[k] answers generate call k; its i-th reply answers request i (the last one answers the rest). */
const fail = () => Promise.reject(new Error('scripted policy: only generate() is scripted'));

export function scriptedPolicy(tok: ChatTokenizer, replies: Reply[][]): ScriptedPolicy {
  const calls: ScriptedPolicy['calls'] = [];
  return {
    vocabSize: tok.vocabSize,
    contextLength: Number.POSITIVE_INFINITY,
    calls,
    async generate(requests, sampling) {
      const k = calls.length;
      calls.push({ requests, sampling });
      const script = replies[k];
      if (!script) throw new Error(`scripted policy: no replies for call ${k}`);
      return requests.map((_, i): Generation => {
        const r = script[Math.min(i, script.length - 1)];
        const tokens = r.tokens ?? tok.encode(r.text);
        if (r.tokens && tok.decode(r.tokens) !== r.text)
          throw new Error(`scripted policy: the reply's tokens do not decode to "${r.text}"`);
        return { tokens, logprobs: tokens.map(() => -1), text: r.text, finish: r.finish ?? 'stop_token' };
      });
    },
    score: fail,
    dispose() {},
  };
}
