// A frozen agent on ONNX: the Policy interface (generate, score) over an onnxruntime session of a decoder exported
// in Hugging Face Optimum's layout (what transformers.js and the hub's "onnx-community" repos ship):
//   inputs  input_ids [B, T], attention_mask [B, P+T], position_ids [B, T], past_key_values.{l}.key/value [B, Hkv, P, Dh]
//   outputs logits [B, T, V], present.{l}.key/value [B, Hkv, P+T, Dh]
// It lets one agent run on onnxruntime (node, or web with the WebGPU / WASM execution providers) while the other
// trains on our engine, and evaluates any ONNX model with the same sampling code as the engine: the same seed gives
// the same tokens whenever the two agree on the logits. onnxruntime is injected, so this file imports neither
// onnxruntime-node nor onnxruntime-web. Training calls throw: the model is frozen.
import type { ModelConfig } from '../model/config.ts';
import type {
  Generation, GenerateRequest, GradientRequest, OptimizerStepResult, Policy, SamplingParams, ScoreRequest, ScoreResult, TokenDecoder,
} from '../policy.ts';
import { logSoftmaxAt, sampleToken, validateSampling } from '../sampling.ts';

/** The parts of an onnxruntime Tensor this file reads. */
export interface OrtTensorLike {
  readonly data: unknown;
  readonly dims: readonly number[];
}

/** The parts of an onnxruntime InferenceSession this file uses. */
export interface OrtSessionLike {
  readonly inputNames: readonly string[];
  run(feeds: Record<string, OrtTensorLike>): Promise<Record<string, OrtTensorLike>>;
  /** frees the session's weights (onnxruntime's InferenceSession.release) */
  release?(): Promise<void>;
}

export interface OnnxPolicyOptions {
  session: OrtSessionLike;
  /** e.g. (type, data, dims) => new ort.Tensor(type, data, dims) */
  tensor(type: 'int64' | 'float32', data: BigInt64Array | Float32Array, dims: number[]): OrtTensorLike;
  /** the model's config.json (parseHfConfig) */
  config: ModelConfig;
  decoder: TokenDecoder;
}

function frozen(what: string): never {
  throw new Error(`${what}: this agent is a frozen ONNX model; it has no adapters and cannot be trained`);
}

/** Entropy of softmax(row), in float64. */
function entropyOf(row: Float32Array): number {
  let max = -Infinity;
  for (const x of row) if (x > max) max = x;
  let sum = 0;
  for (const x of row) sum += Math.exp(x - max);
  const logZ = max + Math.log(sum);
  let h = 0;
  for (const x of row) h -= Math.exp(x - logZ) * (x - logZ);
  return h;
}

export class OnnxFrozenPolicy implements Policy {
  readonly vocabSize: number;
  readonly adapters: readonly string[] = [];
  private readonly numLayers: number;

  constructor(private readonly opts: OnnxPolicyOptions) {
    this.vocabSize = opts.config.vocabSize;
    const pastInputs = opts.session.inputNames.filter((n) => /^past_key_values\.\d+\.key$/.test(n));
    for (const needed of ['input_ids', 'attention_mask', 'position_ids']) {
      if (!opts.session.inputNames.includes(needed)) {
        throw new Error(`ONNX model: input "${needed}" missing (inputs: ${opts.session.inputNames.join(', ')}); export it with a KV cache in Optimum's layout`);
      }
    }
    if (pastInputs.length !== opts.config.numLayers) {
      throw new Error(`ONNX model: ${pastInputs.length} past_key_values inputs but config.json has ${opts.config.numLayers} layers`);
    }
    this.numLayers = pastInputs.length;
  }

  /** Frees the onnxruntime session (its weights live outside the JS heap, e.g. in WASM memory or GPU buffers). */
  async dispose(): Promise<void> {
    await this.opts.session.release?.();
  }

  /** Run `ids` after the cached `past` (null: an empty cache) at absolute positions past.length... */
  private async forward(ids: readonly number[], pastLength: number, past: OrtTensorLike[] | null): Promise<{ logits: Float32Array; present: OrtTensorLike[] }> {
    const { tensor, config } = this.opts;
    const T = ids.length;
    const feeds: Record<string, OrtTensorLike> = {
      input_ids: tensor('int64', BigInt64Array.from(ids, (x) => BigInt(x)), [1, T]),
      attention_mask: tensor('int64', new BigInt64Array(pastLength + T).fill(1n), [1, pastLength + T]),
      position_ids: tensor('int64', BigInt64Array.from({ length: T }, (_, i) => BigInt(pastLength + i)), [1, T]),
    };
    for (let l = 0; l < this.numLayers; l++) {
      for (const [i, kind] of (['key', 'value'] as const).entries()) {
        feeds[`past_key_values.${l}.${kind}`] = past ? past[2 * l + i] : tensor('float32', new Float32Array(0), [1, config.numKvHeads, 0, config.headDim]);
      }
    }
    const out = await this.opts.session.run(feeds);
    const logits = out.logits;
    if (!(logits?.data instanceof Float32Array)) throw new Error('ONNX model: output "logits" must be float32');
    if (logits.dims.at(-1) !== this.vocabSize) throw new Error(`ONNX model: logits have ${logits.dims.at(-1)} columns but config.json's vocab_size is ${this.vocabSize}`);
    const present: OrtTensorLike[] = [];
    for (let l = 0; l < this.numLayers; l++) present.push(out[`present.${l}.key`], out[`present.${l}.value`]);
    return { logits: logits.data, present };
  }

  /** Row t of logits [1, T, V]. */
  private row(logits: Float32Array, t: number): Float32Array {
    return logits.subarray(t * this.vocabSize, (t + 1) * this.vocabSize);
  }

  async generate(requests: readonly GenerateRequest[], sampling: SamplingParams, onProgress?: (doneTokens: number) => void): Promise<Generation[]> {
    validateSampling(sampling);
    const out: Generation[] = [];
    let doneTokens = 0;
    for (const [stream, req] of requests.entries()) {
      const gen: Generation = { tokens: [], logprobs: [], text: '', finish: 'length' };
      out.push(gen);
      if (req.maxNewTokens <= 0 || req.prompt.length === 0) continue;
      let step = await this.forward(req.prompt, 0, null);
      let rowIndex = req.prompt.length - 1;
      let length = req.prompt.length;
      for (let i = 0; i < req.maxNewTokens; i++) {
        const logits = this.row(step.logits, rowIndex);
        const token = sampleToken(logits, sampling, stream, i);
        doneTokens++;
        onProgress?.(doneTokens);
        if (req.stopTokenIds.includes(token)) {
          gen.finish = 'stop_token';
          break;
        }
        gen.tokens.push(token);
        gen.logprobs.push(logSoftmaxAt(logits, token));
        if (req.stopStrings.length > 0) {
          gen.text = this.opts.decoder.decode(gen.tokens);
          if (req.stopStrings.some((s) => s.length > 0 && gen.text.includes(s))) {
            gen.finish = 'stop_string';
            break;
          }
        }
        if (gen.tokens.length >= req.maxNewTokens) break;
        step = await this.forward([token], length, step.present);
        rowIndex = 0;
        length++;
      }
      gen.text = this.opts.decoder.decode(gen.tokens);
    }
    return out;
  }

  async score(requests: readonly ScoreRequest[]): Promise<ScoreResult[]> {
    const results: ScoreResult[] = [];
    for (const [i, req] of requests.entries()) {
      for (const t of req.positions) {
        if (!Number.isInteger(t) || t < 1 || t >= req.tokens.length) throw new Error(`score: request ${i} position ${t} is outside 1..${req.tokens.length - 1}`);
      }
      const { logits } = await this.forward(req.tokens, 0, null);
      const logprobs = new Float32Array(req.positions.length);
      const entropy = new Float32Array(req.positions.length);
      req.positions.forEach((t, j) => {
        const row = this.row(logits, t - 1);
        logprobs[j] = logSoftmaxAt(row, req.tokens[t]);
        entropy[j] = entropyOf(row);
      });
      results.push({ logprobs, entropy });
    }
    return results;
  }

  async accumulateGradients(_requests: readonly GradientRequest[]): Promise<ScoreResult[]> {
    return frozen('accumulateGradients');
  }
  zeroGrad(adapter: string): void {
    frozen(`zeroGrad("${adapter}")`);
  }
  async optimizerStep(adapter: string): Promise<OptimizerStepResult> {
    return frozen(`optimizerStep("${adapter}")`);
  }
  async saveAdapter(adapter: string): Promise<Record<string, Uint8Array>> {
    return frozen(`saveAdapter("${adapter}")`);
  }
  async loadAdapter(adapter: string): Promise<void> {
    return frozen(`loadAdapter("${adapter}")`);
  }
  async saveOptimizerState(adapter: string): Promise<Uint8Array> {
    return frozen(`saveOptimizerState("${adapter}")`);
  }
  async loadOptimizerState(adapter: string): Promise<void> {
    return frozen(`loadOptimizerState("${adapter}")`);
  }
}
