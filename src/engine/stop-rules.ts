// The stopping rules every Policy applies while it generates (the engine's decoder and the frozen ONNX agent
// alike), so that the same sampled tokens end a turn the same way on every runtime: a stop token id ends the
// sequence and is not kept; a stop string ends it and is kept; maxNewTokens ends it at that length.
import type { GenerateRequest, Generation, TokenDecoder } from './policy/policy.ts';
import { logSoftmaxAt } from './sampling.ts';

/**
 * Takes `token`, sampled from `logits`, into `gen` under the request's stop rules (recording its log-prob and
 * setting gen.finish). Returns the token when the sequence goes on, null when it has finished.
 */
export function acceptToken(
  req: GenerateRequest,
  gen: Generation,
  logits: Float32Array,
  token: number,
  decoder: TokenDecoder,
  allowed: Uint32Array | null = null,
): number | null {
  return acceptSampled(req, gen, token, () => logSoftmaxAt(logits, token, allowed), decoder);
}

/** acceptToken for a token drawn elsewhere (on the device): `logp` is its log-prob, or computes it when needed. */
export function acceptSampled(
  req: GenerateRequest,
  gen: Generation,
  token: number,
  logp: number | (() => number),
  decoder: TokenDecoder,
): number | null {
  if (req.stopTokenIds.includes(token)) {
    gen.finish = 'stop_token';
    return null;
  }
  gen.tokens.push(token);
  gen.logprobs.push(typeof logp === 'number' ? logp : logp());
  if (req.stopStrings.length > 0) {
    // a stop string first appears with the newest token, and n characters span at most 4n tokens (byte
    // fallback), so decoding a short tail is enough
    const longest = Math.max(...req.stopStrings.map((s) => s.length));
    const tail = decoder.decode(gen.tokens.slice(-(4 * longest + 4)));
    if (req.stopStrings.some((s) => s.length > 0 && tail.includes(s))) {
      gen.finish = 'stop_string';
      return null;
    }
  }
  if (gen.tokens.length >= req.maxNewTokens) {
    gen.finish = 'length';
    return null;
  }
  return token;
}
