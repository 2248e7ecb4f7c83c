// The page's worker reads a 16-bit checkpoint (the tiny Qwen2.5 fixture: sharded BF16, as the hub's Qwen2.5 models)
// as its 16-bit words: the loaded model the session keeps for every trainer holds 2 bytes per parameter, whatever
// base dtype the backend ends up with (the upload widens per tensor when it is f32), and the model's parameter
// count is unchanged.
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/app/worker/session-model.ts';
import type { WorkerEvent } from '../../../src/app/worker/protocol.ts';
import { hostTensorLength, hostWeightsBytes, isHalfTensor } from '../../../src/engine/io/host-weights.ts';
import { fixtureConfig, folderFiles, TINY_QWEN_FOLDER } from '../../helpers/app/session-driver.ts';

describe('worker loadModel of a BF16 checkpoint', () => {
  it('keeps the weights 16-bit on the host (2 bytes per parameter)', async () => {
    const events: WorkerEvent[] = [];
    const loaded = await loadModel(
      { kind: 'local', name: 'tiny-qwen', files: folderFiles(TINY_QWEN_FOLDER) },
      { preference: 'wasm', config: fixtureConfig() },
      { gpu: undefined, modelsUrl: 'http://127.0.0.1:1/models/' },
      (e) => events.push(e),
    );
    try {
      const weights = loaded.checkpoint.weights;
      let parameters = 0;
      for (const [name, t] of weights) {
        expect(isHalfTensor(t) && t.dtype, name).toBe('bf16');
        parameters += hostTensorLength(t);
      }
      expect(loaded.model.parameters).toBe(parameters);
      expect(hostWeightsBytes(weights)).toBe(2 * parameters);
      expect(events.some((e) => e.type === 'backend')).toBe(true);
    } finally {
      loaded.backend.destroy();
    }
  });
});
