// Hub download and the hub cache, against a local HTTP server on 127.0.0.1 that serves the committed HF-layout
// fixtures the way huggingface.co does (resolve URLs, Range requests, X-Repo-Commit, 404 for absent files).
// Covers: whole-model loading through the hub source, per-file byte progress, resuming a dropped download with
// Range, the on-disk cache layout (and reading a huggingface_hub-made cache offline), and HTTP errors.
import 'fake-indexeddb/auto';
import { createHash } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directoryFileSource } from '../../../src/cli/fs-source.ts';
import { diskHubStore, openModelSource, repoCacheDir } from '../../../src/cli/hub.ts';
import { loadHfTokenizer } from '../../../src/data/hf-tokenizer.ts';
import { loadHfCheckpoint } from '../../../src/engine/io/hf-model.ts';
import { downloadHubFile, hubFileSource, hubFileUrl, memoryHubStore } from '../../../src/engine/io/hub.ts';
import { indexedDbHubStore } from '../../../src/engine/io/hub-idb-store.ts';

const fixtures = resolve(import.meta.dirname, '../../fixtures/hf');
const COMMIT = 'c0ffee0000000000000000000000000000000042';
const REPOS: Record<string, string> = { 'tiny/qwen': 'tiny-qwen2.5-instruct', 'tiny/smollm': 'tiny-smollm2-instruct' };

interface Logged {
  path: string;
  range: string | undefined;
  auth: string | undefined;
}
let server: Server;
let endpoint: string;
const requests: Logged[] = [];
/** files whose next response is cut after this many bytes */
const cutAfter = new Map<string, number>();
let forcedStatus: number | null = null;

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = decodeURIComponent(req.url ?? '');
    requests.push({ path: url, range: req.headers.range, auth: req.headers.authorization });
    if (forcedStatus !== null) {
      res.writeHead(forcedStatus).end('nope');
      return;
    }
    const m = url.match(/^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/);
    const folder = m ? REPOS[m[1]] : undefined;
    const file = folder ? join(fixtures, folder, m![3]) : null;
    if (!file || !existsSync(file)) {
      res.writeHead(404, { 'x-error-code': 'EntryNotFound' }).end('Entry not found');
      return;
    }
    const body = readFileSync(file);
    const headers: Record<string, string> = {
      'x-repo-commit': COMMIT,
      etag: `"${createHash('sha256').update(body).digest('hex')}"`,
    };
    let start = 0;
    const range = req.headers.range?.match(/^bytes=(\d+)-$/);
    if (range) {
      start = Number(range[1]);
      headers['content-range'] = `bytes ${start}-${body.length - 1}/${body.length}`;
    }
    headers['content-length'] = String(body.length - start);
    res.writeHead(range ? 206 : 200, headers);
    const cut = cutAfter.get(m![3]);
    if (cut !== undefined) {
      cutAfter.delete(m![3]);
      res.write(body.subarray(start, start + cut), () => res.destroy()); // drop the connection mid-file
      return;
    }
    res.end(body.subarray(start));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

async function noNetwork(): Promise<Response> {
  throw new Error('network used while offline');
}
async function refused(): Promise<Response> {
  throw new Error('connect ECONNREFUSED');
}

const tmpDirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'rema-hub-'));
  tmpDirs.push(d);
  return d;
}
afterAll(() => tmpDirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('hub download', () => {
  it('builds resolve URLs like huggingface.co', () => {
    expect(hubFileUrl('Qwen/Qwen2.5-0.5B-Instruct', 'main', 'model.safetensors')).toBe(
      'https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct/resolve/main/model.safetensors',
    );
    expect(hubFileUrl('org/m', 'refs/pr/1', 'sub dir/a.json', 'http://h/')).toBe(
      'http://h/org/m/resolve/refs%2Fpr%2F1/sub%20dir/a.json',
    );
    expect(() => hubFileUrl('../etc', 'main', 'x')).toThrow(/not a Hugging Face repository id/);
  });

  it('loads a sharded bf16 model and its tokenizer through the hub, with per-file byte progress', async () => {
    requests.length = 0;
    const source = hubFileSource({ repo: 'tiny/qwen', endpoint, store: memoryHubStore(), token: 'hf_test' });
    const progress = new Map<string, number[]>();
    const ckpt = await loadHfCheckpoint(source, {
      onProgress: (p) => progress.set(p.file, [...(progress.get(p.file) ?? []), p.loadedBytes]),
    });
    const local = await loadHfCheckpoint(directoryFileSource(join(fixtures, 'tiny-qwen2.5-instruct')));
    expect(ckpt.weights).toEqual(local.weights);
    expect(ckpt.config).toEqual(local.config);
    const shards = readdirSync(join(fixtures, 'tiny-qwen2.5-instruct')).filter((f) => f.endsWith('.safetensors'));
    expect(shards).toHaveLength(3);
    for (const shard of shards) {
      const seen = progress.get(shard)!;
      expect(seen.at(-1)).toBe(readFileSync(join(fixtures, 'tiny-qwen2.5-instruct', shard)).length);
      expect(seen.every((x, i) => i === 0 || x >= seen[i - 1])).toBe(true);
    }
    const tok = await loadHfTokenizer(source);
    expect(tok.endOfTurnTokenId).toBe(local.config.eosTokenIds[0]);
    expect(requests.every((r) => r.auth === 'Bearer hf_test')).toBe(true);
    expect(requests.some((r) => r.path === '/tiny/qwen/resolve/main/model.safetensors.index.json')).toBe(true);
    // files already in the store are never fetched again
    const before = requests.length;
    await loadHfCheckpoint(source);
    expect(requests.length).toBe(before);
  });

  it('resumes a dropped download with a Range request from the bytes already received', async () => {
    requests.length = 0;
    const file = 'model-00002-of-00003.safetensors';
    const full = readFileSync(join(fixtures, 'tiny-qwen2.5-instruct', file));
    cutAfter.set(file, 30_000);
    const seen: number[] = [];
    const bytes = await downloadHubFile({
      repo: 'tiny/qwen',
      path: file,
      endpoint,
      store: memoryHubStore(),
      onProgress: (n) => seen.push(n),
    });
    expect(Buffer.from(bytes!).equals(full)).toBe(true);
    const ranges = requests.filter((r) => r.path.endsWith(file)).map((r) => r.range);
    expect(ranges[0]).toBeUndefined();
    expect(ranges).toHaveLength(2);
    expect(ranges[1]).toMatch(/^bytes=\d+-$/);
    const resumedAt = Number(ranges[1]!.slice(6, -1));
    expect(resumedAt).toBeGreaterThan(0);
    expect(resumedAt).toBeLessThanOrEqual(30_000);
    expect(seen.at(-1)).toBe(full.length);
  });

  it('caches on disk in the hub layout, resumes a partial file left by an earlier process, and then works offline', async () => {
    const cacheDir = tmp();
    const repoDir = repoCacheDir(cacheDir, 'tiny/smollm');
    expect(repoDir).toBe(join(cacheDir, 'models--tiny--smollm'));
    // an earlier run stopped after 1000 bytes of the weights
    const weights = readFileSync(join(fixtures, 'tiny-smollm2-instruct', 'model.safetensors'));
    mkdirSync(join(repoDir, '.incomplete', 'main'), { recursive: true });
    writeFileSync(join(repoDir, '.incomplete', 'main', 'model.safetensors'), weights.subarray(0, 1000));
    requests.length = 0;
    const online = await loadHfCheckpoint(openModelSource('tiny/smollm', { cacheDir, endpoint, offline: false }));
    expect(requests.find((r) => r.path.endsWith('/model.safetensors'))!.range).toBe('bytes=1000-');
    expect(readFileSync(join(repoDir, 'refs', 'main'), 'utf8')).toBe(COMMIT);
    expect(readFileSync(join(repoDir, 'snapshots', COMMIT, 'model.safetensors')).equals(weights)).toBe(true);
    expect(existsSync(join(repoDir, '.no_exist', COMMIT, 'model.safetensors.index.json'))).toBe(true);
    // offline, with a network that fails loudly: everything comes from the cache, including the known-absent index
    const offline = await loadHfCheckpoint(
      openModelSource('tiny/smollm', { cacheDir, offline: true, fetch: noNetwork }),
    );
    expect(offline.weights).toEqual(online.weights);
    const cachedOnly = await loadHfCheckpoint(
      openModelSource('tiny/smollm', { cacheDir, offline: false, fetch: noNetwork }),
    );
    expect(cachedOnly.config).toEqual(online.config);
  });

  it('reads a cache written by huggingface_hub (blobs + snapshot symlinks) without the network', async () => {
    const cacheDir = tmp();
    const repoDir = join(cacheDir, 'models--Qwen--Tiny-Instruct');
    const src = join(fixtures, 'tiny-qwen2.5-instruct');
    mkdirSync(join(repoDir, 'blobs'), { recursive: true });
    mkdirSync(join(repoDir, 'snapshots', COMMIT), { recursive: true });
    mkdirSync(join(repoDir, 'refs'), { recursive: true });
    writeFileSync(join(repoDir, 'refs', 'main'), COMMIT);
    for (const f of readdirSync(src)) {
      const bytes = readFileSync(join(src, f));
      const blob = createHash('sha256').update(bytes).digest('hex');
      writeFileSync(join(repoDir, 'blobs', blob), bytes);
      symlinkSync(join('..', '..', 'blobs', blob), join(repoDir, 'snapshots', COMMIT, f));
    }
    const source = openModelSource('Qwen/Tiny-Instruct', { cacheDir, offline: true });
    expect(source.name).toBe('hf://Qwen/Tiny-Instruct@main');
    const ckpt = await loadHfCheckpoint(source);
    expect(ckpt.storedDtypes).toEqual(new Set(['BF16']));
    const tok = await loadHfTokenizer(source);
    expect(tok.applyChatTemplate([{ role: 'user', content: 'hi' }], { addGenerationPrompt: true })).toContain(
      '<|im_start|>assistant\n',
    );
    // a commit hash as the revision goes straight to its snapshot
    const byCommit = await loadHfCheckpoint(
      openModelSource(`Qwen/Tiny-Instruct@${COMMIT}`, { cacheDir, offline: true }),
    );
    expect(byCommit.weights.size).toBe(ckpt.weights.size);
    // offline and not cached: a clear error from the loader
    await expect(loadHfCheckpoint(openModelSource('Qwen/Other', { cacheDir, offline: true }))).rejects.toThrow(
      'hf://Qwen/Other@main/config.json: file not found',
    );
  });

  it('IndexedDB store (browser): a download interrupted in one page load resumes in the next, then loads offline', async () => {
    requests.length = 0;
    const file = 'model-00001-of-00003.safetensors';
    const full = readFileSync(join(fixtures, 'tiny-qwen2.5-instruct', file));
    cutAfter.set(file, 40_000);
    const firstVisit = indexedDbHubStore({ databaseName: 'hub-test', partBytes: 4096 });
    await expect(
      downloadHubFile({ repo: 'tiny/qwen', path: file, endpoint, store: firstVisit, retries: 0 }),
    ).rejects.toThrow(/download failed after 1 attempts/);
    const secondVisit = indexedDbHubStore({ databaseName: 'hub-test', partBytes: 4096 });
    const stored = await secondVisit.partialSize({ repo: 'tiny/qwen', revision: 'main', path: file });
    expect(stored).toBeGreaterThan(0);
    expect(stored).toBeLessThanOrEqual(40_000); // flushed parts survive; an unflushed tail of the first visit is gone
    const bytes = await downloadHubFile({ repo: 'tiny/qwen', path: file, endpoint, store: secondVisit });
    expect(Buffer.from(bytes!).equals(full)).toBe(true);
    expect(requests.filter((r) => r.path.endsWith(file)).map((r) => r.range)).toEqual([undefined, `bytes=${stored}-`]);
    // third visit, no network: the whole model loads from IndexedDB (the index probe included)
    const source = hubFileSource({
      repo: 'tiny/qwen',
      endpoint,
      store: indexedDbHubStore({ databaseName: 'hub-test' }),
    });
    await loadHfCheckpoint(source);
    const thirdVisit = hubFileSource({
      repo: 'tiny/qwen',
      offline: true,
      fetch: noNetwork,
      store: indexedDbHubStore({ databaseName: 'hub-test' }),
    });
    const ckpt = await loadHfCheckpoint(thirdVisit);
    expect(ckpt.storedDtypes).toEqual(new Set(['BF16']));
  });

  it('reports HTTP errors with the URL, and gated repositories as such', async () => {
    const store = memoryHubStore();
    forcedStatus = 401;
    try {
      await expect(
        downloadHubFile({ repo: 'meta-llama/Llama-3.2-1B-Instruct', path: 'config.json', endpoint, store }),
      ).rejects.toThrow(
        `${endpoint}/meta-llama/Llama-3.2-1B-Instruct/resolve/main/config.json: HTTP 401: the repository is gated or private`,
      );
      forcedStatus = 500;
      await expect(downloadHubFile({ repo: 'tiny/qwen', path: 'config.json', endpoint, store })).rejects.toThrow(
        /resolve\/main\/config\.json: HTTP 500/,
      );
    } finally {
      forcedStatus = null;
    }
    expect(await downloadHubFile({ repo: 'tiny/qwen', path: 'nope.json', endpoint, store })).toBeNull();
    await expect(
      downloadHubFile({ repo: 'tiny/qwen', path: 'config.json', endpoint, store, fetch: refused, retries: 1 }),
    ).rejects.toThrow(/config\.json: download failed after 2 attempts: connect ECONNREFUSED/);
    expect(() => diskHubStore(tmp())).not.toThrow();
  });
});
