// Record and replay of a repeated sequence of kernel runs (a decode step) on the WebGPU backend. Encoding a step
// plainly costs host time per dispatch: argument checks, program lookups by string key, bind-group keys, uniform
// packing. Backend.repeat runs the caller's body with every kernel run compared against the previous call's
// recording, in order: a run with the same tensors (by identity) and parameters re-issues its recorded commands
// (pipeline, bind group, uniform words, workgroup counts) straight from the recording; a run whose only changed
// parameters are positions or cache lengths (step-plans.ts) gets its uniforms rewritten from the same pure plan
// the kernel uses; any other run goes through the kernel's host code and its commands are captured anew. So the
// result is always the plain run's, and what changes (a new batch, new caches, another split of the attention
// keys) is re-recorded where it changed. Scratch buffers a recorded command uses are kept out of the pool while the
// recording lives; freeing any tensor it uses drops it.
import type { KernelArgs, KernelName } from '../../kernels/catalog.ts';
import { packParams } from '../../kernels/wgsl/common.ts';
import type { Command, DispatchCommand } from './commands.ts';
import type { GpuContext } from './context.ts';
import type { GpuRuntime } from './runtime.ts';
import { attentionPlan, copyRowsPlan, qkvRopePlan, samplePlan, type KernelPlan } from './step-plans.ts';
import type { KernelTuning } from './tuning.ts';

type Fields = Record<string, unknown>;

/** Kernels whose recorded uniforms can be rewritten when only the `vary` parameters changed. */
const PATCHABLE: Partial<
  Record<KernelName, { vary: readonly string[]; plan(tu: KernelTuning, p: Fields, t: Fields): KernelPlan }>
> = {
  attention: { vary: ['past'], plan: (tu, p) => attentionPlan(tu, p as KernelArgs<'attention'>['p']) },
  qkvRope: { vary: ['dstRow0'], plan: (tu, p) => qkvRopePlan(tu.wg, p as KernelArgs<'qkvRope'>['p']) },
  sample: { vary: ['counter'], plan: (_tu, p) => samplePlan(p as KernelArgs<'sample'>['p']) },
  copyRows: {
    vary: ['dstRow0'],
    plan: (tu, p, t) =>
      copyRowsPlan(tu.wg, p as KernelArgs<'copyRows'>['p'], (t.dst as { dtype: string }).dtype === 'f16'),
  },
};

interface RecordedCall {
  kernel: KernelName;
  t: Fields;
  tCount: number;
  p: Fields;
  pCount: number;
  commands: Command[];
  /** scratch buffers the commands use (kept out of the pool while recorded) */
  scratch: GPUBuffer[];
  /** the plan's sig when the kernel is patchable, else -1 */
  sig: number;
}

/** What the backend lends the recorder: its runtime and kernel context, and the pool of freed buffers. */
export interface RecordingHost {
  runtime: GpuRuntime;
  context: GpuContext;
  /** take a released scratch buffer out of the pool, counted as live; false when it is not in the pool */
  pin(buffer: GPUBuffer): boolean;
  /** give a pinned buffer back to the pool */
  unpin(buffer: GPUBuffer): void;
}

/** One repeated body's recording (Backend.repeat); empty once dropped. */
export class StepRecording {
  calls: RecordedCall[] = [];
  /** ids of the tensors the calls use */
  ids = new Set<number>();
  pinned: GPUBuffer[] = [];
  /** the kernel variants allowed when it was recorded (KernelTuning, which tests and benchmarks may switch) */
  tuning: Fields = {};
  tuningCount = 0;
  constructor(readonly recorder: Recorder) {}
  dispose(): void {
    this.recorder.drop(this);
  }
}

/** Dispatches re-issued from recordings and encoded through the kernels' host code (tests, benchmarks). */
export interface ReplayStats {
  replayed: number;
  patched: number;
  encoded: number;
}

function countKeys(o: Fields): number {
  let n = 0;
  for (const _ in o) n++;
  return n;
}

/** True when `b` has exactly the n own keys of `a`, with identical values. */
function same(a: Fields, n: number, b: Fields): boolean {
  let count = 0;
  for (const k in b) {
    if (b[k] !== a[k]) return false;
    count++;
  }
  return count === n;
}

function tensorIds(t: Fields, into: Set<number>): void {
  for (const k in t) {
    const v = t[k];
    if (Array.isArray(v)) for (const x of v) into.add((x as { id: number }).id);
    else if (v && typeof v === 'object') into.add((v as { id: number }).id);
  }
}

class Session {
  readonly calls: RecordedCall[] = [];
  private i = 0;
  /** a tensor was freed while the body ran: the recording is not kept */
  tainted = false;
  /** scratch taken by the kernel now being captured */
  taken: GPUBuffer[] | null = null;
  /** some run went through its kernel's host code */
  captured = false;
  constructor(
    readonly old: StepRecording | null,
    private readonly host: RecordingHost,
    private readonly stats: ReplayStats,
  ) {}

  run<K extends KernelName>(kernel: K, args: KernelArgs<K>, impl: (ctx: GpuContext, a: KernelArgs<K>) => void): void {
    const t = args.t as unknown as Fields;
    const p = args.p as unknown as Fields;
    const e = this.old?.calls[this.i];
    this.i++;
    if (e !== undefined && e.kernel === kernel && same(e.t, e.tCount, t)) {
      if (same(e.p, e.pCount, p) || this.patch(e, p)) {
        this.emit(e);
        this.calls.push(e);
        return;
      }
    }
    this.capture(kernel, t, p, () => impl(this.host.context, args));
  }

  private emit(e: RecordedCall): void {
    const rt = this.host.runtime;
    for (const c of e.commands) rt.replay(c);
    this.stats.replayed += e.commands.length;
  }

  /** Rewrites e's uniforms for parameters p when only its `vary` parameters changed and the plan keeps its shape. */
  private patch(e: RecordedCall, p: Fields): boolean {
    const how = PATCHABLE[e.kernel];
    if (!how || countKeys(p) !== e.pCount) return false;
    for (const k in p) if (p[k] !== e.p[k] && !how.vary.includes(k)) return false;
    const plan = how.plan(this.host.context.tuning, p, e.t);
    if (plan.sig !== e.sig || plan.list.length !== e.commands.length) return false;
    const list = plan.list;
    for (let j = 0; j < list.length; j++) {
      const c = e.commands[j];
      const g = list[j].grid;
      if (c.kind !== 'dispatch' || c.grid[0] !== g[0] || c.grid[1] !== g[1] || c.grid[2] !== g[2]) return false;
    }
    for (let j = 0; j < list.length; j++) {
      const c = e.commands[j] as DispatchCommand;
      packParams(c.program.params, list[j].params, c.view, 0, c.program.key);
    }
    e.p = { ...p };
    this.stats.patched += plan.list.length;
    return true;
  }

  private capture(kernel: KernelName, t: Fields, p: Fields, run: () => void): void {
    const rt = this.host.runtime;
    const commands: Command[] = [];
    const taken: GPUBuffer[] = [];
    this.captured = true;
    rt.capture = commands;
    this.taken = taken;
    try {
      run();
    } finally {
      rt.capture = null;
      this.taken = null;
    }
    this.stats.encoded += commands.length;
    const how = PATCHABLE[kernel];
    this.calls.push({
      kernel,
      t: { ...t },
      tCount: countKeys(t),
      p: { ...p },
      pCount: countKeys(p),
      commands,
      scratch: taken,
      sig: how ? how.plan(this.host.context.tuning, p, t).sig : -1,
    });
  }
}

/** The backend's recorder: at most one body runs at a time; recordings live until dropped. */
export class Recorder {
  private readonly live = new Set<StepRecording>();
  private session: Session | null = null;
  readonly stats: ReplayStats = { replayed: 0, patched: 0, encoded: 0 };

  constructor(private readonly host: RecordingHost) {}

  /** True while a body runs (the backend routes its kernel runs here). */
  get active(): boolean {
    return this.session !== null;
  }

  repeat(prev: StepRecording | null, body: () => void): StepRecording {
    if (this.session) throw new Error('WebGPU repeat: a repeated body is already running (repeat does not nest)');
    if (prev && prev.recorder !== this) throw new Error('WebGPU repeat: the recording belongs to another backend');
    const rec = prev ?? new StepRecording(this);
    const tuning = this.host.context.tuning as unknown as Fields;
    if (this.live.has(rec) && !same(rec.tuning, rec.tuningCount, tuning)) this.drop(rec); // other variants now
    const session = new Session(this.live.has(rec) ? rec : null, this.host, this.stats);
    this.session = session;
    try {
      body();
    } catch (err) {
      this.drop(rec);
      throw err;
    } finally {
      this.session = null;
    }
    this.keep(rec, session);
    return rec;
  }

  run<K extends KernelName>(kernel: K, args: KernelArgs<K>, impl: (ctx: GpuContext, a: KernelArgs<K>) => void): void {
    this.session!.run(kernel, args, impl);
  }

  /** A scratch buffer taken by a kernel (recorded when a capture is running). */
  tookScratch(buffer: GPUBuffer): void {
    this.session?.taken?.push(buffer);
  }

  /** A tensor was freed: recordings that use it are dropped (a body that frees one is not recorded). */
  freed(id: number): void {
    if (this.session) this.session.tainted = true;
    for (const r of this.live) if (r.ids.has(id)) this.drop(r);
  }

  /** Empties a recording and gives its scratch back. */
  drop(rec: StepRecording): void {
    if (!this.live.delete(rec)) return;
    for (const b of rec.pinned) this.host.unpin(b);
    rec.pinned = [];
    rec.calls = [];
    rec.ids = new Set();
  }

  /** Makes the session's calls the recording's, pinning the scratch they use (or drops it when that fails). */
  private keep(rec: StepRecording, s: Session): void {
    if (!s.tainted && !s.captured && s.old === rec) {
      rec.calls = s.calls; // every run was a recorded one: tensors and scratch are a subset of those kept
      return;
    }
    const pinned = new Set<GPUBuffer>();
    for (const c of s.calls) for (const b of c.scratch) pinned.add(b);
    const before = new Set(this.live.has(rec) ? rec.pinned : []);
    let ok = !s.tainted;
    const added: GPUBuffer[] = [];
    if (ok) {
      for (const b of pinned) {
        if (before.has(b)) continue;
        if (!this.host.pin(b)) {
          ok = false;
          break;
        }
        added.push(b);
      }
    }
    if (!ok) {
      for (const b of added) this.host.unpin(b);
      this.drop(rec);
      return;
    }
    for (const b of before) if (!pinned.has(b)) this.host.unpin(b);
    rec.pinned = [...pinned];
    rec.calls = s.calls;
    rec.tuning = { ...this.host.context.tuning };
    rec.tuningCount = countKeys(rec.tuning);
    rec.ids = new Set();
    for (const c of s.calls) tensorIds(c.t, rec.ids);
    this.live.add(rec);
  }
}
