// Reading runs back: a run JSON exported by the page, or a metrics.jsonl written by `npx rema train`.
// Errors name the file and the line or field, never a bare "invalid JSON".
import type { MetricsRecord, FinishReason, StageTimes } from '../../rl/metrics.ts';
import { newRunId, type SavedRun } from '../persist/run-types.ts';

const zeroFinish: Record<FinishReason, number> = {
  finished: 0,
  reach_max_turn: 0,
  stop_when_truncated: 0,
  completion_token_exceeded: 0,
};
const zeroTimes: StageTimes = { rollout: 0, reward: 0, old: 0, ref: 0, adv: 0, update: 0, eval: 0 };

/** Checks the two fields every record must carry and fills optional ones the charts read, so old logs still draw. */
export function normalizeMetrics(raw: unknown, where: string): MetricsRecord {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`${where}: expected an object`);
  const r = raw as Record<string, unknown>;
  for (const key of ['step', 'reward_mean']) {
    if (typeof r[key] !== 'number' || !Number.isFinite(r[key])) {
      throw new Error(`${where}: field "${key}" must be a number (got ${JSON.stringify(r[key])})`);
    }
  }
  const num = (key: string): number => (typeof r[key] === 'number' ? (r[key] as number) : NaN);
  return {
    ...(r as object),
    step: num('step'),
    reward_mean: num('reward_mean'),
    reward_std: num('reward_std'),
    accuracy: num('accuracy'),
    kl: num('kl'),
    entropy: num('entropy'),
    clip_frac_low: num('clip_frac_low'),
    clip_frac_high: num('clip_frac_high'),
    grad_norm: num('grad_norm'),
    frac_zero_std_groups: num('frac_zero_std_groups'),
    len_meta_mean: num('len_meta_mean'),
    len_reason_mean: num('len_reason_mean'),
    turns_mean: num('turns_mean'),
    lr: num('lr'),
    finish_reasons: { ...zeroFinish, ...(r.finish_reasons as object | undefined) },
    time_s: { ...zeroTimes, ...(r.time_s as object | undefined) },
  } as MetricsRecord;
}

export function parseMetricsJsonl(text: string, fileName: string): MetricsRecord[] {
  const out: MetricsRecord[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (e) {
      throw new Error(`${fileName} line ${i + 1}: not valid JSON (${(e as Error).message})`, { cause: e });
    }
    out.push(normalizeMetrics(parsed, `${fileName} line ${i + 1}`));
  });
  if (out.length === 0) throw new Error(`${fileName}: no metrics records found`);
  return out;
}

export function parseRunJson(text: string, fileName: string): SavedRun {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new Error(`${fileName}: not valid JSON (${(e as Error).message})`, { cause: e });
  }
  const r = parsed as Record<string, unknown>;
  if (r?.format !== 'rema-playground-run') {
    throw new Error(`${fileName}: field "format" must be "rema-playground-run" (is this a run exported by the page?)`);
  }
  if (!Array.isArray(r.metrics)) throw new Error(`${fileName}: field "metrics" must be an array`);
  const metrics = r.metrics.map((m, i) => normalizeMetrics(m, `${fileName} metrics[${i}]`));
  const now = Date.now();
  return {
    id: newRunId(now),
    name: `${typeof r.name === 'string' ? r.name : fileName} (imported)`,
    createdAt: typeof r.createdAt === 'number' ? r.createdAt : now,
    updatedAt: now,
    config: (r.config ?? null) as SavedRun['config'],
    model: typeof r.model === 'string' ? r.model : 'unknown',
    backend: typeof r.backend === 'string' ? r.backend : 'unknown',
    ...(typeof r.frozenModel === 'string' ? { frozenModel: r.frozenModel } : {}),
    status: 'imported',
    metrics,
    rollouts: Array.isArray(r.rollouts) ? (r.rollouts as SavedRun['rollouts']) : [],
    ...(Array.isArray(r.evaluations) ? { evaluations: r.evaluations as SavedRun['evaluations'] } : {}),
    ...(Array.isArray(r.evalRollouts) ? { evalRollouts: r.evalRollouts as SavedRun['evalRollouts'] } : {}),
  };
}

/** Picks the parser by content: a JSON object with our format tag, else JSON lines. */
export function importRunFile(text: string, fileName: string): SavedRun {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') && trimmed.includes('"rema-playground-run"')) return parseRunJson(text, fileName);
  const metrics = parseMetricsJsonl(text, fileName);
  const now = Date.now();
  return {
    id: newRunId(now),
    name: fileName.replace(/\.jsonl?$/, ''),
    createdAt: now,
    updatedAt: now,
    config: null,
    model: 'unknown (CLI)',
    backend: 'cli',
    status: 'imported',
    metrics,
    rollouts: [],
  };
}
