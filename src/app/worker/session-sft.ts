// The page's SFT mode in the worker: `sft` fine-tunes the loaded model on the tiny task's meta-thinking dialogues,
// its CoT answers or a chat JSONL file the user picked (src/rl/sft.ts's step loop, as `rema sft`), reporting each
// step's loss; `sftStop` ends it after the running step; `sftAdopt` makes the SFT'd weights the loaded model and
// builds a new RL trainer on them, so the run in the same tab starts from the fine-tuned policy (and Reset later
// starts from them too). Checksums of the weights let the page show which weights a run starts from.
import { parseSftChats } from '../../data/sft-chats.ts';
import { tinySftChats } from '../../data/tiny-task/corpus.ts';
import type { ModelWeights } from '../../engine/model/config.ts';
import { validateConfig } from '../../rl/config.ts';
import { policyForConfig } from '../../rl/policy-setup.ts';
import { runSftSteps, sftExamples, sftWeights, weightsChecksum } from '../../rl/sft.ts';
import type { SftPageSettings, WorkerRequest } from './protocol.ts';
import type { SessionState } from './session-state.ts';
import { buildTrainer, emitFrozen } from './session-trainer.ts';
import { scheduleBaseline, scheduleFollow } from './session-work.ts';

interface SftRun {
  /** set by sftStop: the loop ends after its current step */
  stop: boolean;
  /** the SFT'd weights of the last finished run, waiting for sftAdopt */
  result: { weights: ModelWeights; checksum: string; label: string } | null;
}

const runs = new WeakMap<SessionState, SftRun>();
const runOf = (s: SessionState): SftRun => runs.get(s) ?? runs.set(s, { stop: false, result: null }).get(s)!;

function chatsFor(settings: SftPageSettings) {
  const d = settings.data;
  if (d.kind === 'file') return { file: d.name, chats: parseSftChats(d.text, d.name) };
  const chats = tinySftChats(d.kind === 'tiny-meta' ? 'meta' : 'cot', {
    split: 'train',
    seed: settings.seed,
    problems: settings.problems,
  });
  return { file: d.kind, chats: chats.map((c, i) => ({ line: i + 1, messages: c.messages })) };
}

function check(settings: SftPageSettings): void {
  const bad = (['problems', 'steps', 'batchSize', 'seed'] as const).filter(
    (k) => !Number.isInteger(settings[k]) || settings[k] < (k === 'seed' ? 0 : 1),
  );
  if (bad.length > 0)
    throw new Error(
      `SFT settings: ${bad.map((k) => `${k} must be a positive integer, got ${settings[k]}`).join('; ')}`,
    );
  if (!(settings.lr > 0 && Number.isFinite(settings.lr)))
    throw new Error(`SFT settings: lr must be a positive number, got ${settings.lr}`);
}

export function sftRequest(s: SessionState, request: Extract<WorkerRequest, { type: 'sft' }>): void {
  s.wantTraining = false;
  const run = runOf(s);
  run.stop = false;
  s.jobs.enqueue(
    async (busy) => {
      const { loaded, active } = s;
      if (!loaded || !active) throw new Error('no model is loaded');
      const { settings } = request;
      check(settings);
      const { file, chats } = chatsFor(settings);
      const { examples } = sftExamples(loaded.tokenizer, chats, loaded.checkpoint.config.maxPositionEmbeddings, file);
      if (examples.length === 0)
        throw new Error(
          `${file}: no chat has a trained token within the model's context (${loaded.checkpoint.config.maxPositionEmbeddings} tokens)`,
        );
      busy('training');
      const config = {
        ...active.config,
        lr: settings.lr,
        steps: settings.steps,
        ppoEpochs: 1,
        miniBatches: 1,
        seed: settings.seed,
      };
      const policy = policyForConfig(config, {
        backend: loaded.backend,
        checkpoint: loaded.checkpoint,
        decoder: loaded.tokenizer,
        baseModelName: loaded.model.name,
        baseDtype: loaded.baseDtype,
      });
      try {
        const adapter = policy.adapters[0];
        const schedule = {
          batchSize: settings.batchSize,
          epochs: Math.ceil((settings.steps * settings.batchSize) / examples.length),
          cutoff: loaded.checkpoint.config.maxPositionEmbeddings,
          seed: settings.seed,
        };
        const steps = await runSftSteps(
          policy,
          adapter,
          examples,
          schedule,
          { from: 0, to: settings.steps },
          {
            stop: () => run.stop,
            onStep: (r) => {
              s.emit({
                type: 'sftStep',
                requestId: request.requestId,
                step: r.step,
                total: settings.steps,
                loss: r.loss,
                tokens: r.tokens,
              });
              s.emit({
                type: 'activity',
                step: 0,
                text: `SFT step ${r.step}/${settings.steps}: loss ${r.loss.toFixed(4)}`,
              });
            },
          },
        );
        const weights = await sftWeights(policy, adapter, loaded.checkpoint);
        const checksum = weightsChecksum(weights);
        run.result = { weights, checksum, label: `${loaded.model.name} + SFT (${file}, ${steps} steps)` };
        s.emit({
          type: 'sftDone',
          requestId: request.requestId,
          steps,
          chats: examples.length,
          baseChecksum: weightsChecksum(loaded.checkpoint.weights),
          checksum,
        });
      } finally {
        policy.dispose();
      }
    },
    { requestId: request.requestId },
  );
}

export function sftStopRequest(s: SessionState): void {
  runOf(s).stop = true;
}

export function sftAdoptRequest(s: SessionState, request: Extract<WorkerRequest, { type: 'sftAdopt' }>): void {
  s.wantTraining = false;
  s.jobs.enqueue(
    async (busy) => {
      const result = runOf(s).result;
      if (!s.loaded) throw new Error('no model is loaded');
      if (!result) throw new Error('no SFT run has finished: run SFT first');
      const config = validateConfig(request.config, 'config', undefined);
      busy('loading');
      s.loaded = {
        ...s.loaded,
        checkpoint: { ...s.loaded.checkpoint, weights: result.weights },
        model: { ...s.loaded.model, name: result.label },
      };
      s.active = {
        ...(await buildTrainer(s, config, busy)),
        ...(request.run !== undefined ? { run: request.run } : {}),
      };
      s.emit({ type: 'sftAdopted', checksum: weightsChecksum(s.loaded.checkpoint.weights), model: s.loaded.model });
      emitFrozen(s);
      s.emit({ type: 'activity', step: 0, text: 'new run from the SFT model' });
    },
    { fatal: () => !s.active },
  );
  scheduleFollow(s);
  scheduleBaseline(s);
}
