// The page's ablation (store/ablation-slice.ts) on the real worker session in-process with the tiny Qwen2.5
// fixture on the CPU backend: 2 configs x 2 seeds x 2 steps run one after another, each with its own config and
// its evaluations; a second store on the same IndexedDB (a reload) cut off in the middle resumes at the first
// unfinished run and never runs a finished one again.
import 'fake-indexeddb/auto';
import { expect, it } from 'vitest';
import { openAblationDb } from '../../../src/app/persist/ablation-db.ts';
import { openRunsDb } from '../../../src/app/persist/runs-db.ts';
import { createPlaygroundStore, type PlaygroundStore } from '../../../src/app/store/create-store.ts';
import { createInProcessClient } from '../../../src/app/worker/client.ts';
import type { TrainerClient, WorkerRequest } from '../../../src/app/worker/protocol.ts';
import { createSession } from '../../../src/app/worker/session.ts';
import type { AblationSpec } from '../../../src/rl/ablation.ts';
import { fixtureConfig, folderFiles, TINY_QWEN_FOLDER } from '../../helpers/app/session-driver.ts';

const config = fixtureConfig({ steps: 2, evalEvery: 2, evalBeforeTrain: false });
const spec: AblationSpec = { axes: [{ field: 'ratio', values: ['token', 'turn-geometric'] }], seeds: [0, 1] };

/** A store on the real session; `close()` is the page going away: nothing more reaches the store, the session stops. */
function makeStore(sent: WorkerRequest[]): { store: PlaygroundStore; close(): void } {
  let open = true;
  let client: TrainerClient | null = null;
  const store = createPlaygroundStore(
    {
      createClient: () => {
        const c = createInProcessClient((e) =>
          createSession(e, {
            gpu: undefined,
            modelsUrl: 'http://127.0.0.1:1/models/',
            dataUrl: 'http://127.0.0.1:1/data',
          }),
        );
        client = c;
        return {
          send: (r) => (sent.push(r), c.send(r)),
          subscribe: (l) => c.subscribe((e) => open && l(e)),
          terminate: () => c.terminate(),
        };
      },
      openDb: () => openRunsDb('ablation-runs'),
      openAblationDb: () => openAblationDb('ablation-store'),
    },
    {
      config,
      preset: 'tiny-default',
      view: 'curves',
      backendPreference: 'wasm',
      modelSpec: { kind: 'local', name: 'tiny-qwen', files: folderFiles(TINY_QWEN_FOLDER) },
      ablation: spec,
    },
  );
  return {
    store,
    close() {
      open = false;
      client?.terminate();
    },
  };
}

async function until(test: () => boolean, what: string, ms = 60_000): Promise<void> {
  const t0 = Date.now();
  while (!test()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

it('runs 2 configs x 2 seeds one after another and resumes after a reload without rerunning finished runs', async () => {
  const sent1: WorkerRequest[] = [];
  const { store: first, close } = makeStore(sent1);
  await first.getState().start();
  await first.getState().restoreAblation();
  await until(() => first.getState().status === 'idle' && first.getState().model !== null, 'the model');
  await first.getState().runAblation();
  // cut off while the second run trains: the first is finished and stored
  await until(() => first.getState().ablation?.runs[1].metrics.length === 1, "the second run's first step");
  const before = first.getState().ablation!;
  expect(before.runs.map((r) => r.status)).toEqual(['done', 'running', 'pending', 'pending']);
  const finished = before.runs[0];
  expect(finished.metrics.map((m) => m.step)).toEqual([1, 2]);
  expect(finished.evals.map((e) => e.step)).toEqual([2]);
  // every run is its own reset with its own config and seed
  const resets1 = sent1.filter((r) => r.type === 'reset');
  expect(resets1.map((r) => [r.config.ratio, r.config.seed])).toEqual([
    ['token', 0],
    ['turn-geometric', 0],
  ]);
  close();
  await new Promise((r) => setTimeout(r, 100));

  // the reload: a new store on the same databases and the same link
  const sent2: WorkerRequest[] = [];
  const { store: second } = makeStore(sent2);
  await second.getState().start();
  await second.getState().restoreAblation();
  await until(() => second.getState().ablation?.status === 'done', 'the resumed ablation', 120_000);
  const after = second.getState().ablation!;
  expect(after.runs.map((r) => r.status)).toEqual(['done', 'done', 'done', 'done']);
  // the finished run was kept as it was, the cut-off one ran again from step 1, the rest ran once
  expect(after.runs[0]).toEqual(finished);
  expect(after.runs.every((r) => r.metrics.map((m) => m.step).join() === '1,2' && r.evals.length === 1)).toBe(true);
  const resets2 = sent2.filter((r) => r.type === 'reset');
  expect(resets2.map((r) => [r.config.ratio, r.config.seed])).toEqual([
    ['turn-geometric', 0],
    ['token', 1],
    ['turn-geometric', 1],
  ]);
  // stored for the next reload too
  const stored = await (await openAblationDb('ablation-store')).get(after.id);
  expect(stored?.status).toBe('done');
}, 180_000);
