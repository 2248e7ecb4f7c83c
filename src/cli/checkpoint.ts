// Resumable checkpoints on disk: the trainer state (step, data cursor), every adapter (PEFT files or full
// weights) and every optimiser state (AdamW moments, step count). Written atomically: everything goes into a
// temporary folder that is renamed into place, then the `latest` pointer file is replaced by rename, so a kill
// at any moment leaves either the previous or the new checkpoint, never a half-written one; a failed write (a
// full disk) names its file and removes the temporary folder. state.json records every file's size, so a
// damaged checkpoint (truncated file, bad JSON) is found on reading, and resuming falls back to the newest
// intact one.

import { mkdir, readFile, readdir, rename, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { TrainablePolicy } from '../engine/policy/policy.ts';
import type { Trainer, TrainerState } from '../rl/trainer.ts';
import { nodeIo, replaceFile, writeNamed, type WriteIo } from './run-files.ts';

export interface CheckpointMeta {
  version: 1;
  trainer: TrainerState;
  adapters: string[];
  /** file names per adapter */
  files: Record<string, string[]>;
  /** size in bytes of every file, by path inside the checkpoint folder (absent in checkpoints written before it) */
  bytes?: Record<string, number>;
  saved_at: string;
}

/** A checkpoint read whole into memory: every file present, with the size state.json recorded. */
export interface LoadedCheckpoint {
  path: string;
  meta: CheckpointMeta;
  /** adapter -> file name -> bytes */
  adapters: Record<string, Record<string, Uint8Array>>;
  /** adapter -> optimiser state (absent when only adapters were read) */
  optimizers: Record<string, Uint8Array>;
}

const stepDir = (step: number) => `step-${String(step).padStart(6, '0')}`;
const STEP_DIR = /^step-(\d+)$/;

export interface SaveOptions {
  /** checkpoints kept (newest first); default 2 */
  keep?: number;
  /** the writes' file system (tests inject a full disk) */
  io?: WriteIo;
}

/** Write a checkpoint of `trainer` + `policy` under `dir` (e.g. out/checkpoints) and point `latest` at it; keeps the newest `keep`. */
export async function saveCheckpoint(
  dir: string,
  trainer: Pick<Trainer, 'state'>,
  policy: TrainablePolicy,
  opts: SaveOptions = {},
): Promise<string> {
  const keep = opts.keep ?? 2;
  const io = opts.io ?? nodeIo;
  const state = trainer.state();
  await mkdir(dir, { recursive: true });
  const final = join(dir, stepDir(state.step));
  const tmp = join(dir, `.tmp-${stepDir(state.step)}-${process.pid}`);
  try {
    await rm(tmp, { recursive: true, force: true });
    await mkdir(tmp, { recursive: true });
    const files: Record<string, string[]> = {};
    const bytes: Record<string, number> = {};
    const put = async (rel: string, data: Uint8Array) => {
      await writeNamed(join(tmp, rel), data, io);
      bytes[rel] = data.byteLength;
    };
    for (const adapter of policy.adapters) {
      const adapterFiles = await policy.saveAdapter(adapter);
      await mkdir(join(tmp, 'adapters', adapter), { recursive: true });
      for (const [name, data] of Object.entries(adapterFiles)) await put(`adapters/${adapter}/${name}`, data);
      files[adapter] = Object.keys(adapterFiles);
      await put(`optimizer-${adapter}.bin`, await policy.saveOptimizerState(adapter));
    }
    const meta: CheckpointMeta = {
      version: 1,
      trainer: state,
      adapters: [...policy.adapters],
      files,
      bytes,
      saved_at: new Date().toISOString(),
    };
    await writeNamed(join(tmp, 'state.json'), JSON.stringify(meta, null, 2), io);
    await rm(final, { recursive: true, force: true });
    await rename(tmp, final);
  } catch (e) {
    await rm(tmp, { recursive: true, force: true }).catch(() => {});
    throw e;
  }
  await replaceFile(join(dir, 'latest'), stepDir(state.step), io);
  const old = (await readdir(dir)).filter((n) => STEP_DIR.test(n)).toSorted();
  for (const name of old.slice(0, Math.max(0, old.length - keep)))
    await rm(join(dir, name), { recursive: true, force: true });
  return final;
}

/** Removes the temporary folders of checkpoints whose writing was interrupted (a kill, a full disk). */
export async function removeUnfinishedCheckpoints(dir: string): Promise<void> {
  if (!existsSync(dir)) return;
  for (const name of await readdir(dir))
    if (name.startsWith('.tmp-step-') || name.startsWith('.latest-'))
      await rm(join(dir, name), { recursive: true, force: true });
}

/** The checkpoint folders under `dir`, newest step first. */
export async function checkpointFolders(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  return (await readdir(dir))
    .filter((n) => STEP_DIR.test(n))
    .toSorted((a, b) => Number(STEP_DIR.exec(b)![1]) - Number(STEP_DIR.exec(a)![1]))
    .map((n) => join(dir, n));
}

async function readChecked(path: string, rel: string, meta: CheckpointMeta): Promise<Uint8Array> {
  const file = join(path, rel);
  let data: Uint8Array;
  try {
    data = new Uint8Array(await readFile(file));
  } catch (e) {
    throw new Error(`${file}: cannot read (${(e as Error).message})`, { cause: e });
  }
  const want = meta.bytes?.[rel];
  if (want !== undefined && want !== data.byteLength)
    throw new Error(`${file}: ${data.byteLength} bytes, but the checkpoint wrote ${want} (truncated or damaged)`);
  return data;
}

/** Reads state.json and every file of a checkpoint folder, checking them; throws an error naming the damaged file. */
export async function readCheckpoint(path: string, withOptimizers = true): Promise<LoadedCheckpoint> {
  const stateFile = join(path, 'state.json');
  let meta: CheckpointMeta;
  try {
    meta = JSON.parse(await readFile(stateFile, 'utf8')) as CheckpointMeta;
  } catch (e) {
    throw new Error(`${stateFile}: cannot read the checkpoint (${(e as Error).message})`, { cause: e });
  }
  if (typeof meta !== 'object' || meta === null || meta.version !== 1)
    throw new Error(
      `${stateFile}: unknown checkpoint version ${String((meta as { version?: unknown } | null)?.version)}`,
    );
  if (!Array.isArray(meta.adapters) || typeof meta.files !== 'object' || typeof meta.trainer?.step !== 'number')
    throw new Error(`${stateFile}: not a checkpoint state (adapters, files and trainer.step expected)`);
  const adapters: LoadedCheckpoint['adapters'] = {};
  const optimizers: LoadedCheckpoint['optimizers'] = {};
  for (const adapter of meta.adapters) {
    adapters[adapter] = {};
    for (const name of meta.files[adapter] ?? [])
      adapters[adapter][name] = await readChecked(path, `adapters/${adapter}/${name}`, meta);
    if (withOptimizers) optimizers[adapter] = await readChecked(path, `optimizer-${adapter}.bin`, meta);
  }
  return { path, meta, adapters, optimizers };
}

/** The adapters a checkpoint holds must be the ones the policy trains (else the config differs from the run's). */
export function checkAdapters(ckpt: LoadedCheckpoint, policyAdapters: readonly string[]): void {
  const have = [...ckpt.meta.adapters].toSorted();
  const want = [...policyAdapters].toSorted();
  if (have.join(',') !== want.join(','))
    throw new Error(
      `${ckpt.path}: the checkpoint holds adapters [${have.join(', ')}] but this config's policy has [${want.join(', ')}] ` +
        '(paramMode, finetune or frozenAgent differ from the run that wrote it)',
    );
}

/** Loads the adapters (and, when read, the optimiser states) of a checkpoint into `policy`; errors name the file. */
export async function loadIntoPolicy(ckpt: LoadedCheckpoint, policy: TrainablePolicy): Promise<void> {
  checkAdapters(ckpt, policy.adapters);
  for (const adapter of ckpt.meta.adapters) {
    try {
      await policy.loadAdapter(adapter, ckpt.adapters[adapter]);
    } catch (e) {
      throw new Error(`${join(ckpt.path, 'adapters', adapter)}: cannot load the adapter (${(e as Error).message})`, {
        cause: e,
      });
    }
    const opt = ckpt.optimizers[adapter];
    if (opt === undefined) continue;
    try {
      await policy.loadOptimizerState(adapter, opt);
    } catch (e) {
      throw new Error(
        `${join(ckpt.path, `optimizer-${adapter}.bin`)}: cannot load the optimiser state (${(e as Error).message})`,
        { cause: e },
      );
    }
  }
}

/** Load adapters, optimiser states and the trainer state of a checkpoint. */
export async function restoreCheckpoint(
  ckpt: LoadedCheckpoint,
  trainer: Trainer,
  policy: TrainablePolicy,
): Promise<void> {
  await loadIntoPolicy(ckpt, policy);
  trainer.restore(ckpt.meta.trainer);
}

/**
 * The newest checkpoint under `dir` that reads and `apply`s without error (null when there is none). A damaged
 * newer one is reported through `warn` (naming the file and what is wrong) and skipped; when every checkpoint is
 * damaged the error lists them all. A checkpoint whose adapters are not `adapters` is not damaged but from
 * another config: that refuses at once.
 */
export async function newestIntactCheckpoint(
  dir: string,
  adapters: readonly string[],
  apply: (ckpt: LoadedCheckpoint) => Promise<void>,
  warn: (line: string) => void,
  opts: { withOptimizers?: boolean } = {},
): Promise<{ ckpt: LoadedCheckpoint; damaged: string[] } | null> {
  const folders = await checkpointFolders(dir);
  const problems: string[] = [];
  const damaged: string[] = [];
  const skip = (folder: string, e: unknown) => {
    const message = (e as Error).message;
    problems.push(`  ${message}`);
    damaged.push(folder);
    warn(`damaged checkpoint skipped: ${message}`);
  };
  for (const folder of folders) {
    let ckpt: LoadedCheckpoint;
    try {
      ckpt = await readCheckpoint(folder, opts.withOptimizers ?? true);
    } catch (e) {
      skip(folder, e);
      continue;
    }
    checkAdapters(ckpt, adapters);
    try {
      await apply(ckpt);
    } catch (e) {
      skip(folder, e);
      continue;
    }
    if (damaged.length > 0)
      warn(`using the newest intact checkpoint instead: ${folder} (step ${ckpt.meta.trainer.step})`);
    return { ckpt, damaged };
  }
  if (folders.length > 0)
    throw new Error(
      `${dir}: no intact checkpoint to resume from:\n${problems.join('\n')}\n(remove the run folder to start again, or restore a checkpoint)`,
    );
  return null;
}
