// Resumable checkpoints on disk: the trainer state (step, data cursor), every adapter (PEFT files or full
// weights) and every optimiser state (AdamW moments, step count). Written atomically: everything goes into a
// temporary folder that is renamed into place, then the `latest` pointer file is replaced by rename, so a kill
// at any moment leaves either the previous or the new checkpoint, never a half-written one.

import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Policy } from '../engine/policy.ts';
import type { Trainer, TrainerState } from '../rl/trainer.ts';

export interface CheckpointMeta {
  version: 1;
  trainer: TrainerState;
  adapters: string[];
  /** file names per adapter */
  files: Record<string, string[]>;
  saved_at: string;
}

const stepDir = (step: number) => `step-${String(step).padStart(6, '0')}`;

/** Write a checkpoint of `trainer` + `policy` under `dir` (e.g. out/checkpoints) and point `latest` at it; keeps the newest `keep`. */
export async function saveCheckpoint(dir: string, trainer: Trainer, policy: Policy, keep = 2): Promise<string> {
  const state = trainer.state();
  await mkdir(dir, { recursive: true });
  const final = join(dir, stepDir(state.step));
  const tmp = join(dir, `.tmp-${stepDir(state.step)}-${process.pid}`);
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  const files: Record<string, string[]> = {};
  for (const adapter of policy.adapters) {
    const adapterFiles = await policy.saveAdapter(adapter);
    await mkdir(join(tmp, 'adapters', adapter), { recursive: true });
    for (const [name, bytes] of Object.entries(adapterFiles)) await writeFile(join(tmp, 'adapters', adapter, name), bytes);
    files[adapter] = Object.keys(adapterFiles);
    await writeFile(join(tmp, `optimizer-${adapter}.bin`), await policy.saveOptimizerState(adapter));
  }
  const meta: CheckpointMeta = { version: 1, trainer: state, adapters: [...policy.adapters], files, saved_at: new Date().toISOString() };
  await writeFile(join(tmp, 'state.json'), JSON.stringify(meta, null, 2));
  await rm(final, { recursive: true, force: true });
  await rename(tmp, final);
  const pointerTmp = join(dir, `.latest-${process.pid}`);
  await writeFile(pointerTmp, stepDir(state.step));
  await rename(pointerTmp, join(dir, 'latest'));
  const old = (await readdir(dir)).filter((n) => /^step-\d+$/.test(n)).toSorted();
  for (const name of old.slice(0, Math.max(0, old.length - keep))) await rm(join(dir, name), { recursive: true, force: true });
  return final;
}

/** The newest checkpoint under `dir`, or null when there is none. */
export async function readLatestCheckpoint(dir: string): Promise<{ path: string; meta: CheckpointMeta } | null> {
  const pointer = join(dir, 'latest');
  if (!existsSync(pointer)) return null;
  const path = join(dir, (await readFile(pointer, 'utf8')).trim());
  let meta: CheckpointMeta;
  try {
    meta = JSON.parse(await readFile(join(path, 'state.json'), 'utf8')) as CheckpointMeta;
  } catch (e) {
    throw new Error(`${path}/state.json: cannot read the checkpoint (${(e as Error).message})`, { cause: e });
  }
  if (meta.version !== 1) throw new Error(`${path}/state.json: unknown checkpoint version ${String(meta.version)}`);
  return { path, meta };
}

/** Load adapters, optimiser states and the trainer state of a checkpoint. */
export async function restoreCheckpoint(path: string, meta: CheckpointMeta, trainer: Trainer, policy: Policy): Promise<void> {
  for (const adapter of meta.adapters) {
    if (!policy.adapters.includes(adapter))
      throw new Error(`${path}: checkpoint has adapter "${adapter}" but the policy has [${policy.adapters.join(', ')}] (different config?)`);
    const files: Record<string, Uint8Array> = {};
    for (const name of meta.files[adapter]) files[name] = new Uint8Array(await readFile(join(path, 'adapters', adapter, name)));
    await policy.loadAdapter(adapter, files);
    await policy.loadOptimizerState(adapter, new Uint8Array(await readFile(join(path, `optimizer-${adapter}.bin`))));
  }
  trainer.restore(meta.trainer);
}

/** Load only the adapters of a checkpoint (for evaluation of a trained run). */
export async function loadCheckpointAdapters(path: string, policy: Policy): Promise<void> {
  const meta = JSON.parse(await readFile(join(path, 'state.json'), 'utf8')) as CheckpointMeta;
  for (const adapter of meta.adapters) {
    if (!policy.adapters.includes(adapter)) continue;
    const files: Record<string, Uint8Array> = {};
    for (const name of meta.files[adapter]) files[name] = new Uint8Array(await readFile(join(path, 'adapters', adapter, name)));
    await policy.loadAdapter(adapter, files);
  }
}
