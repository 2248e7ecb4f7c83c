// SFT slice: the page's SFT mode. Sends the worker an `sft` request (the tiny task's meta-thinking dialogues or CoT
// answers, or a chat JSONL file the user picked), keeps the loss of every step the worker reports for the live
// curve, and "start RL from this model" (`sftAdopt`): the RL run restarts at step 0 from the SFT'd weights, as
// Reset does from the loaded model, with the checksum of the weights the worker built it from.
import type { StateCreator } from 'zustand/vanilla';
import type { WorkerEvent } from '../worker/protocol.ts';
import { persist, type StoreContext } from './context.ts';
import type { PlaygroundState, SftSlice, SftState } from './types.ts';

const INITIAL: SftState = {
  data: 'tiny-meta',
  file: null,
  steps: 20,
  batchSize: 8,
  lr: 1e-3,
  problems: 256,
  running: false,
  requestId: null,
  losses: [],
  total: 0,
  done: null,
  adopted: null,
  error: null,
};

export function createSftSlice(ctx: StoreContext): StateCreator<PlaygroundState, [], [], SftSlice> {
  return (set, get) => {
    const patch = (change: Partial<SftState>) => set({ sft: { ...get().sft, ...change } });
    return {
      sft: INITIAL,
      setSftOptions(change) {
        patch(change);
      },
      runSft() {
        const sft = get().sft;
        if (!ctx.client || sft.running) return;
        if (sft.data === 'file' && !sft.file) {
          patch({ error: 'pick a chat JSONL file first' });
          return;
        }
        const requestId = ctx.nextRequestId++;
        const data =
          sft.data === 'file'
            ? { kind: 'file' as const, name: sft.file!.name, text: sft.file!.text }
            : { kind: sft.data };
        set({ wantsTraining: false });
        patch({ running: true, requestId, losses: [], total: sft.steps, done: null, adopted: null, error: null });
        ctx.client.send({
          type: 'sft',
          requestId,
          settings: {
            data,
            problems: sft.problems,
            steps: sft.steps,
            batchSize: sft.batchSize,
            lr: sft.lr,
            seed: get().config.seed,
          },
        });
      },
      stopSft() {
        ctx.client?.send({ type: 'sftStop' });
      },
      adoptSft() {
        if (!ctx.client || !get().sft.done) return;
        const previous = get().currentRun;
        if (previous) {
          const stopped = { ...previous, status: 'stopped' as const };
          set({ runs: get().runs.map((r) => (r.id === stopped.id ? stopped : r)) });
          void persist(ctx, (db) => db.put(stopped));
        }
        set({ currentRun: null, wantsTraining: false, configDirty: false, activity: null, activeConfig: get().config });
        ctx.client.send({ type: 'sftAdopt', config: get().config, run: ++ctx.run });
      },
      internal_sftEvent(e: WorkerEvent) {
        const sft = get().sft;
        if (e.type === 'sftStep' && e.requestId === sft.requestId)
          patch({ losses: [...sft.losses, { step: e.step, loss: e.loss }], total: e.total });
        else if (e.type === 'sftDone' && e.requestId === sft.requestId)
          patch({
            running: false,
            done: { steps: e.steps, chats: e.chats, baseChecksum: e.baseChecksum, checksum: e.checksum },
          });
        else if (e.type === 'sftAdopted') {
          patch({ adopted: e.checksum });
          set({ model: e.model });
        } else if (e.type === 'error' && e.requestId !== null && e.requestId === sft.requestId && sft.running)
          patch({ running: false, error: e.message });
      },
    };
  };
}
