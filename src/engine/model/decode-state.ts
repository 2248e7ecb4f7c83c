// One decode step's buffers and kernels over a fixed set of cache rows (generate.ts makes a new one when the rows
// are compacted): embedding, every layer against the KV caches, final norm and LM head. Steps after the first
// replay the first one's kernels where the backend records them (Backend.repeat).
import type { Backend, RepeatRecording, Tensor } from '../backend.ts';
import type { ModelConfig } from './config.ts';
import type { ActiveWeights } from './decoder.ts';
import { TensorScope } from './device-ops.ts';
import {
  FusedWorkspace,
  LayerWorkspace,
  layerForward,
  layerForwardFused,
  ropeFrequencies,
  type LayerContext,
} from './layer.ts';
import type { SamplerBuffers } from './token-choice.ts';

/** Buffers of one decode step over Bc cache rows. */
export class DecodeState {
  private readonly scope: TensorScope;
  readonly ids: Tensor; // [Bc] i32 token fed at this step
  readonly pos: Tensor; // [Bc] i32 its RoPE position
  private readonly ctx: LayerContext;
  private readonly ws: LayerWorkspace | FusedWorkspace;
  private readonly x: Tensor; // [Bc, D]
  private readonly y: Tensor; // [Bc, D]
  private readonly hn: Tensor; // [Bc, D]
  private readonly rstd: Tensor; // [Bc]
  private readonly logits: Tensor; // [Bc, V]
  /** the `sample` kernel's buffers for these rows (allocated once per state) */
  readonly sampler: SamplerBuffers;
  /** the step's kernels as recorded by Backend.repeat (later steps replay them) */
  private recording: RepeatRecording | null = null;

  constructor(
    private readonly be: Backend,
    private readonly cfg: ModelConfig,
    private readonly w: ActiveWeights,
    keyStart: Int32Array,
  ) {
    const Bc = keyStart.length;
    const { hiddenSize: D, vocabSize: V } = cfg;
    const scope = (this.scope = new TensorScope(be));
    try {
      this.ws = w.fused ? new FusedWorkspace(scope, cfg, Bc, 1) : new LayerWorkspace(scope, cfg, Bc, 1, w.lora);
      this.ids = scope.alloc([Bc], 'decode.ids', 'i32');
      this.pos = scope.alloc([Bc], 'decode.pos', 'i32');
      this.ctx = {
        be,
        cfg,
        pos: this.pos,
        keyStart: scope.from([Bc], keyStart, 'decode.keyStart'),
        invFreq: ropeFrequencies(scope, cfg),
      };
      this.x = scope.alloc([Bc, D], 'decode.x');
      this.y = scope.alloc([Bc, D], 'decode.y');
      this.hn = scope.alloc([Bc, D], 'decode.hNorm');
      this.rstd = scope.alloc([Bc], 'decode.rstd');
      this.logits = scope.alloc([Bc, V], 'decode.logits');
      this.sampler = {
        rowOf: scope.alloc([Bc], 'decode.sample.rowOf', 'i32'),
        stream: scope.alloc([Bc], 'decode.sample.stream', 'i32'),
        out: scope.alloc([Bc, 4], 'decode.sample.out', 'i32'),
        streamsOf: null,
        recording: null,
      };
    } catch (err) {
      scope.freeAll(); // out of memory partway: free what was allocated, the caller sees the allocation's error
      throw err;
    }
  }

  /** Embed ids, run every layer against the caches (writing this step's k, v at row `past`); the logits [Bc, V]
   *  (owned by this state) are recorded, not read. Steps after the first replay the first one's kernels where the
   *  backend records them (Backend.repeat): only the ids, positions and cache row change between steps. */
  step(caches: ReadonlyArray<{ k: Tensor; v: Tensor }>, past: number, S: number): Tensor {
    if (this.be.repeat) this.recording = this.be.repeat(this.recording, () => this.encode(caches, past, S));
    else this.encode(caches, past, S);
    return this.logits;
  }

  private encode(caches: ReadonlyArray<{ k: Tensor; v: Tensor }>, past: number, S: number): void {
    const { be, cfg, w } = this;
    const Bc = this.ws.B;
    const { hiddenSize: D, vocabSize: V } = cfg;
    be.run('embedding', { t: { ids: this.ids, table: w.params.embed, out: this.x }, p: { R: Bc, D } });
    // every kernel below reads and writes only its own sequences' rows: a backend may share them out by sequence
    const layers = () => {
      let cur = this.x;
      let nxt = this.y;
      const ws = this.ws;
      for (let l = 0; l < cfg.numLayers; l++) {
        const attn = { kind: 'cache', k: caches[l].k, v: caches[l].v, past, S } as const;
        if (ws instanceof FusedWorkspace) {
          layerForwardFused(this.ctx, w.fused![l], cur, ws, attn); // in place: the residual adds are matmul epilogues
          continue;
        }
        const lora = w.lora ? { adapter: w.lora, layer: w.lora.layers[l] } : null;
        layerForward(this.ctx, w.params.layers[l], lora, cur, nxt, ws, attn);
        [cur, nxt] = [nxt, cur];
      }
      be.run('rmsnorm', {
        t: { x: cur, w: w.params.finalNorm, y: this.hn, rstd: this.rstd },
        p: { R: Bc, D, eps: cfg.rmsNormEps },
      });
      be.run('lmHead', { t: { h: this.hn, w: w.params.lmHead, logits: this.logits }, p: { R: Bc, D, V } });
    };
    if (be.bySequence) be.bySequence(Bc, layers);
    else layers();
  }

  free(): void {
    this.recording?.dispose();
    this.recording = null;
    this.sampler.recording?.dispose();
    this.sampler.recording = null;
    this.scope.freeAll();
  }
}
