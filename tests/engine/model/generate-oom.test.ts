// decodeBatch running out of memory while it compacts its KV caches (model/generate.ts): whichever allocation
// fails, the caller sees that allocation's out-of-memory error (not a double free of a cache already replaced) and
// every tensor the call made is freed. Real CPU backend with a total-bytes limit, swept from the peak down to the
// weights' bytes so that it falls between each of the decode's allocations (the compaction's among them).
import { describe, expect, it } from 'vitest';
import { CpuBackend } from '../../../src/engine/backends/cpu.ts';
import { decodeBatch, type DeviceSampler, type NextToken } from '../../../src/engine/model/generate.ts';
import { uploadParams } from '../../../src/engine/model/params.ts';
import { randomWeights, tinyConfig } from '../../helpers/engine/model-random.ts';

const cfg = tinyConfig({ numLayers: 3 });
const weights = randomWeights(cfg, 5);
// 8 sequences sharing one prompt: the prefill makes 1-row caches, then compaction gathers them to 8 rows per layer
const B = 8;
const prompt = [3, 5, 7, 9];
const maxNewTokens = 3;

const host: NextToken = (_b, _logits, step) => (step < 2 ? 4 : null);
const device: DeviceSampler = {
  sampling: { temperature: 1, topK: 0, topP: 1, seed: 3 },
  streams: Array.from({ length: B }, (_, b) => b),
  next: (_b, drawn, step) => (step < 2 ? drawn.token : null),
};

/** Runs the decode under a limit of `limit` bytes; returns the error (or null) and the live tensors left after. */
async function decodeUnder(
  limit: number,
  chooser: NextToken | DeviceSampler,
): Promise<{ error: Error | null; leftover: number; peak: number; weightBytes: number }> {
  const be = new CpuBackend({ maxTotalBytes: limit });
  const params = uploadParams(be, cfg, weights);
  const before = be.ledger().liveTensors;
  const weightBytes = be.ledger().liveBytes;
  let error: Error | null = null;
  try {
    await decodeBatch(
      be,
      cfg,
      { params, lora: null },
      Array.from({ length: B }, () => prompt),
      chooser,
      { maxNewTokens },
    );
  } catch (e) {
    error = e as Error;
  }
  return { error, leftover: be.ledger().liveTensors - before, peak: be.ledger().peakBytes, weightBytes };
}

describe('decodeBatch out of memory during cache compaction', () => {
  it.each([
    ['host chooser', host],
    ['device sampler', device],
  ] as const)('surfaces the allocation error and frees everything, at every limit (%s)', async (_name, chooser) => {
    const free = await decodeUnder(1 << 30, chooser);
    expect(free.error).toBeNull();
    const cacheBytes = B * (prompt.length + maxNewTokens) * cfg.numKvHeads * cfg.headDim * 4; // one compacted cache
    const midway: string[] = [];
    for (let limit = free.peak - 1; limit >= free.weightBytes; limit -= cacheBytes / 4) {
      const { error, leftover } = await decodeUnder(limit, chooser);
      expect(leftover, `limit ${limit}: ${error?.message}`).toBe(0);
      if (error === null) continue;
      expect(error.message, `limit ${limit}`).toMatch(
        /^CpuBackend\.alloc '[^']*' \[[\d,]+\] \w+: needs \d+ bytes but only \d+ of \d+ bytes are available/,
      );
      // a compaction allocation after the first one: some caches were already replaced when it failed
      if (/alloc 'cache\.(k\.[1-9]|v\.\d)' \[8,/.test(error.message)) midway.push(error.message);
    }
    expect(midway.length).toBeGreaterThanOrEqual(2 * cfg.numLayers - 1);
  });
});
