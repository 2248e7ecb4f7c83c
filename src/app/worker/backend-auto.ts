// The "auto" backend: of the backends the worker can open, keep the one that trains the config fastest on the
// loaded model, by measurement (rl/backend-calibration.ts: about 1 s plus WebGPU's shader warm-up), not by adapter
// type. The measurement never delays the first rollout: the model becomes ready at once on the CPU backend
// (startAuto, "for now"), and the session measures later as a queued job before any training step (measureAuto;
// session-auto.ts switches when WebGPU won). The rates are kept by the page per adapter and model (the key below)
// and sent back with the next load, so a reload chooses from them without measuring; another GPU, driver, CPU
// build or model shape is another key.
import type { ModelConfig } from '../../engine/model/config.ts';
import type { TokenDecoder, TrainablePolicy } from '../../engine/policy/policy.ts';
import type { HostWeights } from '../../engine/model/config.ts';
import {
  calibrateBackends,
  chooseBackend,
  describeBackendChoice,
  type BackendChoice,
} from '../../rl/backend-calibration.ts';
import type { ExperimentConfig } from '../../rl/config.ts';
import { policyForConfig, type LoadedWeights } from '../../rl/policy-setup.ts';
import {
  autoIdentity,
  openGpuCandidate,
  type AutoStart,
  type BackendCandidate,
  type SelectedBackend,
} from './backend-select.ts';
import type { AutoBackendReport, CachedBackendRates } from './protocol.ts';
import { fnv1aHex } from '../../util/fnv1a.ts';

/** Time the candidates share for their timed rounds (each also runs a warm-up and at least one round). */
export const AUTO_BUDGET_MS = 1000;

/** FNV-1a of the model's hyper-parameters: the same name with another shape is another key. */
export function modelShapeHash(config: ModelConfig): string {
  return fnv1aHex(JSON.stringify(config));
}

/** `baseDtype`: the frozen base's storage the trainer will use (f16 weights run at another speed than f32). */
export function autoKey(
  identity: string,
  modelName: string,
  config: ModelConfig,
  baseDtype: BaseDtype = 'auto',
): string {
  return `auto-backend/v1|${identity}|model=${modelName}#${modelShapeHash(config)}|weights=${baseDtype}`;
}

type BaseDtype = NonNullable<LoadedWeights['baseDtype']>;

/** What the load knows when it chooses: the model, the config, the page's kept rates. */
export interface AutoStartInputs {
  start: AutoStart;
  config: ExperimentConfig;
  modelName: string;
  model: ModelConfig;
  cached: readonly CachedBackendRates[];
  remeasure: boolean;
  /** the frozen base's storage the trainer will use (policy-setup.ts LoadedWeights); default 'auto' */
  baseDtype?: BaseDtype;
}

/** The measurement still to run after the start-up work (the model runs on `cpu` meanwhile). */
export interface PendingAuto {
  start: AutoStart;
  /** whether WebGPU is measured (an adapter exists and its device was not already found broken) */
  measureGpu: boolean;
  /** why WebGPU is not measured */
  note: string | null;
  baseDtype: BaseDtype;
  modelName: string;
}

export interface AutoStartResult {
  selected: SelectedBackend;
  /** null: the kept rates chose (nothing to measure) */
  pending: PendingAuto | null;
}

function report(key: string, choice: BackendChoice, cached: boolean, note: string | null, switchedFrom?: string) {
  const line = describeBackendChoice(choice, { cached, note, ...(switchedFrom ? { switchedFrom } : {}) });
  return { key, choice, cached, note, line } satisfies AutoBackendReport;
}

function selected(c: BackendCandidate, auto: AutoBackendReport): SelectedBackend {
  return { backend: c.backend, info: { ...c.info, cpuReason: c.name === 'webgpu' ? null : `${auto.line}.`, auto } };
}

/** Rates kept under `key` that cover every candidate of `names`, unless the page asked to measure again. */
function keptRates(a: AutoStartInputs, key: string, names: readonly string[]): CachedBackendRates | undefined {
  const kept = a.remeasure ? undefined : a.cached.find((c) => c.key === key);
  return kept && names.every((n) => kept.rates.some((r) => r.backend === n)) ? kept : undefined;
}

/** Chooses from the page's kept rates when their key matches (opening WebGPU only when they chose it), else keeps
 *  the CPU backend for now and returns the measurement to run later. Closes what it does not return on failure. */
export async function startAuto(a: AutoStartInputs): Promise<AutoStartResult> {
  const baseDtype = a.baseDtype ?? 'auto';
  const { cpu, adapter, why } = a.start;
  const keyFor = (device: boolean) => autoKey(autoIdentity(a.start, device), a.modelName, a.model, baseDtype);
  const fromKept = (kept: CachedBackendRates, names: readonly string[]) =>
    chooseBackend(
      names.map((n) => kept.rates.find((r) => r.backend === n)!),
      a.config,
      a.model,
      { measured_ms: kept.measured_ms },
    );
  let note: string | null = adapter ? null : `webgpu not measured: ${why}`;
  if (adapter) {
    const key = keyFor(true);
    const kept = keptRates(a, key, ['webgpu', cpu.name]);
    if (kept) {
      const choice = fromKept(kept, ['webgpu', cpu.name]);
      if (choice.winner !== 'webgpu')
        return { selected: selected(cpu, report(key, choice, true, null)), pending: null };
      const gpu = await openGpuCandidate(adapter);
      if (gpu.candidate) {
        cpu.close();
        return { selected: selected(gpu.candidate, report(key, choice, true, null)), pending: null };
      }
      note = gpu.note;
    }
  }
  if (!adapter || note) {
    // WebGPU will not be measured: the rates of the CPU backend alone, under the key that says so
    const key = keyFor(false);
    const kept = keptRates(a, key, [cpu.name]);
    if (kept) return { selected: selected(cpu, report(key, fromKept(kept, [cpu.name]), true, note)), pending: null };
  }
  const measureGpu = adapter !== null && note === null;
  const names = measureGpu ? ['webgpu', cpu.name] : [cpu.name];
  const line = `auto -> ${cpu.name} for now; measuring ${names.join(' and ')} on this model…`;
  return {
    selected: {
      backend: cpu.backend,
      info: { ...cpu.info, cpuReason: `${line}`, autoPending: { line, measuring: true } },
    },
    pending: { start: a.start, measureGpu, note, baseDtype, modelName: a.modelName },
  };
}

export interface MeasureInputs {
  config: ExperimentConfig;
  checkpoint: { config: ModelConfig; weights: HostWeights };
  decoder: TokenDecoder;
  /** the running trainer's policy on the CPU backend: measured in place (no second copy of the weights) */
  cpuPolicy?: TrainablePolicy;
  /** a candidate starts (the status line says so) */
  onCandidate?: (name: string) => void;
  /** the time (ms) while measuring `candidate`; default performance.now() */
  clock?: (candidate: string) => number;
}

/** The pending measurement: opens WebGPU (when it is measured), measures it and the CPU backend on the model, and
 *  returns the winner (a WebGPU that lost is closed; the CPU backend stays the caller's). Throws when no candidate
 *  could run (WebGPU closed). */
export async function measureAuto(
  p: PendingAuto,
  m: MeasureInputs,
): Promise<{ winner: BackendCandidate; selected: SelectedBackend; report: AutoBackendReport }> {
  const { cpu } = p.start;
  let note = p.note;
  let gpu: BackendCandidate | null = null;
  if (p.measureGpu && p.start.adapter) {
    const opened = await openGpuCandidate(p.start.adapter);
    gpu = opened.candidate;
    note = opened.note;
  }
  const candidates = gpu ? [gpu, cpu] : [cpu];
  const key = autoKey(autoIdentity(p.start, gpu !== null), p.modelName, m.checkpoint.config, p.baseDtype);
  let current = '';
  const clock = m.clock;
  let choice: BackendChoice;
  try {
    choice = await calibrateBackends(
      candidates.map((c) => ({
        name: c.name,
        backend: c.backend,
        ...(c === cpu && m.cpuPolicy ? { policy: m.cpuPolicy } : {}),
      })),
      {
        config: m.config,
        model: m.checkpoint.config,
        policyFor: (backend) =>
          policyForConfig(m.config, {
            backend,
            checkpoint: m.checkpoint,
            decoder: m.decoder,
            baseDtype: p.baseDtype,
          }),
        // one candidate: nothing to compare, one round gives its rates
        budgetMs: candidates.length > 1 ? AUTO_BUDGET_MS : 0,
        ...(clock ? { clock: () => clock(current) } : {}),
        onCandidate: (name) => {
          current = name;
          m.onCandidate?.(name);
        },
      },
    );
  } catch (e) {
    gpu?.close();
    throw e;
  }
  const winner = candidates.find((c) => c.name === choice.winner)!;
  if (gpu && winner !== gpu) gpu.close();
  const auto = report(key, choice, false, note, winner === cpu ? undefined : cpu.name);
  return { winner, selected: selected(winner, auto), report: auto };
}
