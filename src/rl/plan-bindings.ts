// The planner's binding check (engine/plan/bindings.ts) for a config: the largest tensor a WebGPU kernel binds
// whole, whether it passes maxStorageBufferBindingSize, and the config change that makes every such tensor fit
// (fewer sequences decoded together, or shorter prompts and messages), checked by planning the changed config.
import { planBindings, type BindingNeed, type BindingPlan } from '../engine/plan/bindings.ts';
import type { MemoryShape } from '../engine/plan/memory.ts';
import type { ModelConfig } from '../engine/model/config.ts';
import { validateConfig, type ExperimentConfig } from './config.ts';

export interface BindingCheck extends BindingPlan {
  /** config fields that make every whole-bound tensor fit (null when it fits, or when no such change was found) */
  fix: Record<string, unknown> | null;
  /** what breaks and what to change, in words (absent when everything fits) */
  message?: string;
}

function halvingsOf(from: number, min: number): number[] {
  const out: number[] = [];
  for (let v = Math.floor(from / 2); v >= min; v = Math.floor(v / 2)) out.push(v);
  return out;
}

/** Config changes to try, nearest first, for the tensors that break the limit. */
function candidates(c: ExperimentConfig, breaks: readonly BindingNeed[]): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  const bySequences = breaks.filter((b) => b.scales === 'sequences');
  const byTokens = breaks.some((b) => b.scales === 'tokens');
  const batch = bySequences.length > 0 ? Math.min(c.decodeBatch, ...bySequences.map((b) => b.fitsUpTo)) : null;
  const base = batch !== null && batch >= 1 ? { decodeBatch: batch } : {};
  if (!byTokens) return batch !== null && batch >= 1 ? [base] : [];
  for (const p of halvingsOf(c.maxPromptTokens, 64)) out.push({ ...base, maxPromptTokens: p });
  for (const n of halvingsOf(c.maxTokensPerTurn, 16)) out.push({ ...base, maxTokensPerTurn: n });
  return out;
}

/** The binding check of `config` (shapeOf: the step's workload, as the planner computes it) against `limit`. */
export function checkBindings(
  config: ExperimentConfig,
  model: ModelConfig,
  shapeOf: (c: ExperimentConfig) => MemoryShape,
  limit: number,
): BindingCheck {
  const plan = planBindings(model, shapeOf(config), limit);
  if (plan.breaks.length === 0) return { ...plan, fix: null };
  let fix: Record<string, unknown> | null = null;
  for (const set of candidates(config, plan.breaks)) {
    let c: ExperimentConfig;
    try {
      c = validateConfig(set, 'plan binding fix', config);
    } catch {
      continue;
    }
    if (planBindings(model, shapeOf(c), limit).breaks.length === 0) {
      fix = set;
      break;
    }
  }
  const worst = plan.breaks[0];
  const change = fix
    ? Object.entries(fix)
        .map(([k, v]) => `--set ${k}=${JSON.stringify(v)}`)
        .join(' ')
    : 'no nearby config fits: pick a smaller model or a device with a larger binding limit';
  const message =
    `breaks maxStorageBufferBindingSize (${limit} B): ${worst.tensor} takes ${worst.bytes} B in one binding` +
    `${plan.breaks.length > 1 ? ` (and ${plan.breaks.length - 1} more)` : ''}; ${change}`;
  return { ...plan, fix, message };
}
