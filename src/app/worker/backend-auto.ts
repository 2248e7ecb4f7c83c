// The "auto" backend: of the backends the worker could open (backend-select.ts openCandidates), keep the one
// that trains the config fastest on the loaded model, by measurement (rl/backend-calibration.ts: about 1 s), not by
// adapter type. The rates are kept by the page per adapter and model (the key below) and sent back with the next
// load, so a reload chooses again without measuring; another GPU, driver, CPU build or model shape is another key.
import type { ModelConfig } from '../../engine/model/config.ts';
import type { TokenDecoder } from '../../engine/policy/policy.ts';
import type { ModelWeights } from '../../engine/model/config.ts';
import {
  calibrateBackends,
  chooseBackend,
  describeBackendChoice,
  type BackendChoice,
} from '../../rl/backend-calibration.ts';
import type { ExperimentConfig } from '../../rl/config.ts';
import { policyForConfig, type LoadedWeights } from '../../rl/policy-setup.ts';
import type { BackendCandidate, SelectedBackend } from './backend-select.ts';
import type { AutoBackendReport, CachedBackendRates, WorkerEvent } from './protocol.ts';

/** Time the candidates share for their timed rounds (each also runs a warm-up and at least one round). */
export const AUTO_BUDGET_MS = 1000;

/** FNV-1a of the model's hyper-parameters: the same name with another shape is another key. */
export function modelShapeHash(config: ModelConfig): string {
  let h = 0x811c9dc5;
  for (const ch of JSON.stringify(config)) {
    h ^= ch.charCodeAt(0);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
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

export interface AutoInputs {
  candidates: BackendCandidate[];
  /** backend-select.ts openCandidates's identity and note */
  identity: string;
  note: string | null;
  config: ExperimentConfig;
  modelName: string;
  checkpoint: { config: ModelConfig; weights: ModelWeights };
  decoder: TokenDecoder;
  cached: readonly CachedBackendRates[];
  remeasure: boolean;
  /** the frozen base's storage the trainer will use (policy-setup.ts LoadedWeights); default 'auto' */
  baseDtype?: BaseDtype;
  emit: (e: WorkerEvent) => void;
  clock?: () => number;
}

/** Chooses among the candidates (from the page's cache when its key matches, else by measuring), closes the
 *  others and returns the winner with the report the page shows. Closes every candidate when none can run. */
export async function chooseAuto(a: AutoInputs): Promise<SelectedBackend> {
  const baseDtype = a.baseDtype ?? 'auto';
  const key = autoKey(a.identity, a.modelName, a.checkpoint.config, baseDtype);
  const names: string[] = a.candidates.map((c) => c.name);
  const kept = a.remeasure ? undefined : a.cached.find((c) => c.key === key);
  const usable = kept && names.every((n) => kept.rates.some((r) => r.backend === n));
  let choice: BackendChoice;
  try {
    if (usable) {
      const rates = names.map((n) => kept.rates.find((r) => r.backend === n)!);
      choice = chooseBackend(rates, a.config, a.checkpoint.config, { measured_ms: kept.measured_ms });
    } else {
      choice = await calibrateBackends(
        a.candidates.map((c) => ({ name: c.name, backend: c.backend })),
        {
          config: a.config,
          model: a.checkpoint.config,
          policyFor: (backend) =>
            policyForConfig(a.config, { backend, checkpoint: a.checkpoint, decoder: a.decoder, baseDtype }),
          // one candidate: nothing to compare, one round gives its rates
          budgetMs: a.candidates.length > 1 ? AUTO_BUDGET_MS : 0,
          ...(a.clock ? { clock: a.clock } : {}),
          onCandidate: (name) =>
            a.emit({
              type: 'progress',
              stage: `auto backend: measuring ${name}`,
              file: null,
              loaded: names.indexOf(name),
              total: names.length,
            }),
        },
      );
    }
  } catch (e) {
    for (const c of a.candidates) c.close();
    throw e;
  }
  const winner = a.candidates.find((c) => c.name === choice.winner)!;
  for (const c of a.candidates) if (c !== winner) c.close();
  const cached = Boolean(usable);
  const report: AutoBackendReport = {
    key,
    choice,
    cached,
    note: a.note,
    line: describeBackendChoice(choice, { cached, note: a.note }),
  };
  return {
    backend: winner.backend,
    info: { ...winner.info, cpuReason: winner.name === 'webgpu' ? null : `${report.line}.`, auto: report },
  };
}
