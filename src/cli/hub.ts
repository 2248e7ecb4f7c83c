// Model folders for the CLI: a local directory, or a Hugging Face repo id served from the standard hub cache
// (~/.cache/huggingface/hub/models--org--name/snapshots/<commit>/...) and downloaded into it when missing, so
// models fetched by Python's huggingface_hub are reused and ours are reusable by it.
import { existsSync, statSync } from 'node:fs';
import { appendFile, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { hubFileSource, validateRepoId, type FetchLike, type HubFileKey, type HubStore } from '../engine/io/hub.ts';
import { resolveCatalogRepo } from '../data/models/catalog.ts';
import type { FileSource } from '../util/file-source.ts';
import { directoryFileSource } from './fs-source.ts';

const COMMIT = /^[0-9a-f]{40}$/;

/** $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub (huggingface_hub's rule). */
export function defaultHubCacheDir(env: Record<string, string | undefined> = process.env): string {
  if (env.HF_HUB_CACHE) return env.HF_HUB_CACHE;
  if (env.HF_HOME) return join(env.HF_HOME, 'hub');
  return join(homedir(), '.cache', 'huggingface', 'hub');
}

export function repoCacheDir(cacheDir: string, repo: string): string {
  validateRepoId(repo);
  return join(cacheDir, `models--${repo.replace('/', '--')}`);
}

async function readIfExists(path: string): Promise<Uint8Array | null> {
  try {
    return new Uint8Array(await readFile(path));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** The snapshot folder name for a revision: itself when a commit hash, else what refs/<revision> points to. */
async function snapshotId(repoDir: string, revision: string): Promise<string> {
  if (COMMIT.test(revision)) return revision;
  const ref = await readIfExists(join(repoDir, 'refs', revision));
  return ref ? new TextDecoder().decode(ref).trim() : revision;
}

/** A HubStore in the hub cache layout; interrupted downloads wait in <repo>/.incomplete/ until resumed. */
export function diskHubStore(cacheDir: string = defaultHubCacheDir()): HubStore {
  const repoDir = (k: HubFileKey) => repoCacheDir(cacheDir, k.repo);
  const partialPath = (k: HubFileKey) => join(repoDir(k), '.incomplete', encodeURIComponent(k.revision), k.path);
  const missingPath = async (k: HubFileKey) =>
    join(repoDir(k), '.no_exist', await snapshotId(repoDir(k), k.revision), k.path);
  return {
    async get(k) {
      return readIfExists(join(repoDir(k), 'snapshots', await snapshotId(repoDir(k), k.revision), k.path));
    },
    async isMissing(k) {
      return existsSync(await missingPath(k));
    },
    async markMissing(k) {
      const p = await missingPath(k);
      await mkdir(dirname(p), { recursive: true });
      await writeFile(p, '');
    },
    async partialSize(k) {
      try {
        return (await stat(partialPath(k))).size;
      } catch {
        return 0;
      }
    },
    async appendPartial(k, chunk) {
      await mkdir(dirname(partialPath(k)), { recursive: true });
      await appendFile(partialPath(k), chunk);
    },
    async clearPartial(k) {
      await rm(partialPath(k), { force: true });
    },
    async finishPartial(k, commit) {
      const dir = repoDir(k);
      let id = await snapshotId(dir, k.revision);
      if (commit && COMMIT.test(commit)) {
        id = commit;
        if (commit !== k.revision) {
          await mkdir(join(dir, 'refs'), { recursive: true });
          await writeFile(join(dir, 'refs', k.revision), commit);
        }
      }
      const target = join(dir, 'snapshots', id, k.path);
      await mkdir(dirname(target), { recursive: true });
      if (!existsSync(partialPath(k))) await writeFile(partialPath(k), new Uint8Array(0)); // an empty file
      await rename(partialPath(k), target);
    },
  };
}

export interface ModelSourceOptions {
  cacheDir?: string;
  /** default: $HF_TOKEN */
  token?: string;
  /** default: $HF_HUB_OFFLINE === '1' */
  offline?: boolean;
  endpoint?: string;
  fetch?: FetchLike;
}

/**
 * "path/to/folder" -> that folder; "org/name" or "org/name@revision" -> the hub repo through the cache
 * (files already cached are read without the network); a catalog name (src/data/models, e.g.
 * "qwen2.5-0.5b-instruct") stands for its repo.
 */
export function openModelSource(spec: string, options: ModelSourceOptions = {}): FileSource {
  if (existsSync(spec) && statSync(spec).isDirectory()) return directoryFileSource(spec);
  const [repo, revision = 'main'] = resolveCatalogRepo(spec).split('@');
  if (spec.startsWith('.') || spec.startsWith('/')) throw new Error(`${spec}: no such model folder`);
  validateRepoId(repo);
  return hubFileSource({
    repo,
    revision,
    store: diskHubStore(options.cacheDir ?? defaultHubCacheDir()),
    token: options.token ?? process.env.HF_TOKEN,
    offline: options.offline ?? process.env.HF_HUB_OFFLINE === '1',
    endpoint: options.endpoint,
    fetch: options.fetch,
  });
}
