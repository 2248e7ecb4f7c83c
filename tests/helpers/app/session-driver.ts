// Drives the worker's session in-process for tests: createSession with an event log and a request() that sends
// one WorkerRequest and resolves with the first event of the awaited type (an error event rejects), and a local
// folder read from disk the way the page's folder input hands it over.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { OrtLoader } from '../../../src/app/worker/onnx-runtime.ts';
import type { WorkerEvent, WorkerRequest } from '../../../src/app/worker/protocol.ts';
import { createSession, type SessionEnv } from '../../../src/app/worker/session.ts';
import type { ExperimentConfig } from '../../../src/rl/config.ts';
import { getPreset } from '../../../src/rl/presets.ts';

/** `env` replaces parts of the session's environment (e.g. `gpu`: Dawn's navigator.gpu; default none); `onEvent`
 *  sees each event as it is sent (e.g. to note what the GPU had done by then). */
export function startSession(loadOrt?: OrtLoader, env: Partial<SessionEnv> = {}, onEvent?: (e: WorkerEvent) => void) {
  const events: WorkerEvent[] = [];
  const waiters: { test: (e: WorkerEvent) => boolean; resolve: (e: WorkerEvent) => void }[] = [];
  const handle = createSession(
    (e) => {
      events.push(e);
      onEvent?.(e);
      for (const w of waiters.splice(0)) {
        if (w.test(e)) w.resolve(e);
        else waiters.push(w);
      }
    },
    {
      gpu: undefined,
      modelsUrl: 'http://127.0.0.1:1/models/',
      dataUrl: 'http://127.0.0.1:1/data',
      ...(loadOrt ? { loadOrt } : {}),
      ...env,
    },
  );
  const request = async <T extends WorkerEvent['type']>(r: WorkerRequest, type: T) => {
    const wait = new Promise<WorkerEvent>((res) =>
      waiters.push({ test: (e) => e.type === type || e.type === 'error', resolve: res }),
    );
    handle(r);
    const e = await wait;
    if (e.type === 'error' && type !== 'error') throw new Error(`session error: ${e.message}`);
    return e as Extract<WorkerEvent, { type: T }>;
  };
  /** the first event (already sent or still to come) that passes `test` */
  const until = async (test: (e: WorkerEvent) => boolean, timeoutMs = 60_000): Promise<WorkerEvent> => {
    const t0 = Date.now();
    for (;;) {
      const hit = events.find(test);
      if (hit) return hit;
      if (Date.now() - t0 > timeoutMs) throw new Error(`no such event within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return { events, request, until };
}

/** Every file under `root` by its path inside it, as a folder input gives them. */
export function folderFiles(root: string, skip: (path: string) => boolean = () => false): Map<string, File> {
  const out = new Map<string, File>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      const path = relative(root, full);
      if (statSync(full).isDirectory()) walk(full);
      else if (!skip(path)) out.set(path, new File([readFileSync(full)], name));
    }
  };
  walk(root);
  return out;
}

/** The committed tiny Qwen2.5 model folder the app tests load as a user's local folder. */
export const TINY_QWEN_FOLDER = resolve(import.meta.dirname, '../../fixtures/hf/tiny-qwen2.5-instruct');

/**
 * tiny-default at minimal sizes for the tiny Qwen2.5 fixture, so a session test takes seconds: the tiny prompts
 * (short enough for the fixture's context under its byte-level tokenizer), 1 problem x group 2, short turns.
 */
export function fixtureConfig(over: Partial<ExperimentConfig> = {}): ExperimentConfig {
  return {
    ...getPreset('tiny-default'),
    prompts: 'tiny',
    maxPromptTokens: 4096,
    problemsPerStep: 1,
    groupSize: 2,
    maxTurns: 2,
    maxTokensPerTurn: 6,
    evalEvery: 0,
    evalBeforeTrain: true,
    evalSize: 2,
    trainSize: 8,
    steps: 2,
    ...over,
  };
}

/** Loads the fixture folder into a session on the CPU backend and waits until it is ready. */
export function loadFixture(s: ReturnType<typeof startSession>, config: ExperimentConfig) {
  return s.request(
    {
      type: 'load',
      model: { kind: 'local', name: 'tiny-qwen', files: folderFiles(TINY_QWEN_FOLDER) },
      backend: 'wasm',
      config,
    },
    'ready',
  );
}
