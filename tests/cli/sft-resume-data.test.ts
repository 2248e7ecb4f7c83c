// A resumed `rema sft` reads what it started with: a chat file whose contents changed (same path) is refused,
// naming the file; a larger --steps on resume is said out loud (the cosine schedule's length changes).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runSft, sftFromFlags } from '../../src/cli/sft.ts';

const chatLine = (q: string, a: string) =>
  JSON.stringify({
    messages: [
      { role: 'user', content: q },
      { role: 'assistant', content: a },
    ],
  });
const chats = (n: number, answer: (i: number) => string) =>
  Array.from({ length: n }, (_, i) => chatLine(`${i}+1?`, answer(i))).join('\n') + '\n';

describe('rema sft resume', () => {
  it('refuses a chat file whose contents changed since the run started, and stores the hash in sft.json', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rema-sft-data-'));
    const file = join(dir, 'chats.jsonl');
    writeFileSync(
      file,
      chats(4, (i) => `${i + 1}`),
    );
    const run = sftFromFlags({ data: [file], set: ['sft.batchSize=2', 'sft.epochs=1'] });
    const out = join(dir, 'run');
    await runSft({ ...run, out, backend: 'wasm', saveEvery: 1, progress: 'none', maxNewSteps: 1 });
    const stored = JSON.parse(readFileSync(join(out, 'sft.json'), 'utf8')) as { data_sha256: Record<string, string> };
    expect(stored.data_sha256[file]).toMatch(/^[0-9a-f]{64}$/);
    writeFileSync(
      file,
      chats(4, (i) => `${i + 2}`),
    );
    await expect(runSft({ ...run, out, backend: 'wasm', progress: 'none' })).rejects.toThrow(
      `${file}: its contents changed since this SFT run started`,
    );
    writeFileSync(
      file,
      chats(4, (i) => `${i + 1}`),
    );
    await expect(runSft({ ...run, out, backend: 'wasm', progress: 'none' })).resolves.toMatchObject({
      resumedFrom: 1,
      steps: 2,
    });
  });

  it('says so when --steps on resume changes the length of the schedule', async () => {
    const first = sftFromFlags({ preset: 'tiny-sft-cot', set: ['sft.tinyProblems=8', 'sft.batchSize=2'], steps: '2' });
    const out = mkdtempSync(join(tmpdir(), 'rema-sft-steps-'));
    await runSft({ ...first, out, backend: 'wasm', saveEvery: 1, progress: 'none' });
    const longer = sftFromFlags({ preset: 'tiny-sft-cot', set: ['sft.tinyProblems=8', 'sft.batchSize=2'], steps: '3' });
    const said: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      said.push(String(chunk));
      return true;
    });
    try {
      const r = await runSft({ ...longer, out, backend: 'wasm', saveEvery: 1, progress: 'none' });
      expect(r).toMatchObject({ resumedFrom: 2, steps: 3, totalSteps: 3 });
    } finally {
      spy.mockRestore();
    }
    expect(said.join('')).toContain("rema: the run's length changes from 2 to 3 steps (--steps)");
  });
});
