// Run-folder files under failure, on the real file system with a real trainer and engine policy: a write that
// fails like a full disk (the WriteIo seam throws an ENOSPC-coded error where the disk would) names its file,
// leaves no temporary checkpoint folder and keeps the previous checkpoint; a log rewrite that fails leaves the
// log as it was; a checkpoint with bad JSON or a truncated file is skipped for the newest intact one.
import { mkdtempSync, readdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newestIntactCheckpoint, restoreCheckpoint, saveCheckpoint } from '../../src/cli/checkpoint.ts';
import { nodeIo, type WriteIo } from '../../src/cli/run-files.ts';
import { prepareLogs } from '../../src/cli/run-logs.ts';
import { makeTrainer, smallConfig } from '../helpers/rl/trainer-setup.ts';

/** The error Node's fs gives when the disk is full (it names no file). */
const enospc = () =>
  Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });

/** The real file system, except that writing a file whose path matches `failing` runs out of space. */
function fullDiskFor(failing: RegExp): WriteIo {
  return {
    writeFile: async (path, data) => {
      if (failing.test(path)) throw enospc();
      await nodeIo.writeFile(path, data);
    },
    appendFile: async (path, data) => {
      if (failing.test(path)) throw enospc();
      await nodeIo.appendFile(path, data);
    },
  };
}

describe('checkpoints and logs on a failing disk', () => {
  it('a checkpoint that cannot be written names the file, removes its temporary folder and keeps the previous one', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'rema-ckpt-')), 'checkpoints');
    const { trainer, policy } = makeTrainer(smallConfig('tiny-default'));
    await trainer.step();
    await saveCheckpoint(dir, trainer, policy);
    await trainer.step();
    const failed = saveCheckpoint(dir, trainer, policy, { io: fullDiskFor(/optimizer-shared\.bin$/) });
    await expect(failed).rejects.toThrow(
      /\.tmp-step-000002-\d+\/optimizer-shared\.bin: cannot write \(ENOSPC: no space left on device, write\)/,
    );
    await expect(failed).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(readdirSync(dir).toSorted()).toEqual(['latest', 'step-000001']);
    expect(readFileSync(join(dir, 'latest'), 'utf8')).toBe('step-000001');
    // the pointer's rewrite failing leaves the old pointer and no temporary file
    await expect(saveCheckpoint(dir, trainer, policy, { io: fullDiskFor(/latest\.tmp-\d+$/) })).rejects.toThrow(
      /checkpoints\/latest: cannot write \(ENOSPC/,
    );
    expect(readdirSync(dir).filter((n) => n.includes('tmp'))).toEqual([]);
    expect(readFileSync(join(dir, 'latest'), 'utf8')).toBe('step-000001');
  });

  it('a log rewrite that fails on resume leaves the log whole', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'rema-logs-'));
    const logs = {
      metrics: join(tmp, 'metrics.jsonl'),
      rollouts: join(tmp, 'rollouts.jsonl'),
      evals: join(tmp, 'eval.jsonl'),
      evalRollouts: join(tmp, 'eval_rollouts.jsonl'),
    };
    const metrics = '{"step":1}\n{"step":2}\n{"step":3}\n';
    writeFileSync(logs.metrics, metrics);
    writeFileSync(logs.rollouts, '{"step":1}\n{"step":2}\n');
    writeFileSync(logs.evals, '');
    writeFileSync(logs.evalRollouts, '');
    const resume = prepareLogs(logs, 2, 'checkpoints/step-000002', false, fullDiskFor(/metrics\.jsonl/));
    await expect(resume).rejects.toThrow(/metrics\.jsonl: cannot write \(ENOSPC/);
    expect(readFileSync(logs.metrics, 'utf8')).toBe(metrics);
    expect(readdirSync(tmp).filter((n) => n.includes('tmp'))).toEqual([]);
    await prepareLogs(logs, 2, 'checkpoints/step-000002', false);
    expect(readFileSync(logs.metrics, 'utf8')).toBe('{"step":1}\n{"step":2}\n');
  });

  it('skips a checkpoint with bad JSON or a truncated file for the newest intact one, saying which file', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'rema-ckpt-')), 'checkpoints');
    const config = smallConfig('tiny-default');
    const { trainer, policy } = makeTrainer(config);
    for (let i = 0; i < 3; i++) {
      await trainer.step();
      await saveCheckpoint(dir, trainer, policy, { keep: 3 });
    }
    writeFileSync(join(dir, 'step-000003/state.json'), '{"version": 1, "trainer": ');
    const adapterFile = join(dir, 'step-000002/adapters/shared/adapter_model.safetensors');
    truncateSync(adapterFile, 100);
    const fresh = makeTrainer(config);
    const said: string[] = [];
    const found = await newestIntactCheckpoint(
      dir,
      fresh.policy.adapters,
      (c) => restoreCheckpoint(c, fresh.trainer, fresh.policy),
      (l) => said.push(l),
    );
    expect(found?.ckpt.meta.trainer.step).toBe(1);
    expect(fresh.trainer.state().step).toBe(1);
    expect(found?.damaged).toEqual([join(dir, 'step-000003'), join(dir, 'step-000002')]);
    expect(said[0]).toMatch(/step-000003\/state\.json: cannot read the checkpoint/);
    expect(said[1]).toMatch(
      /step-000002\/adapters\/shared\/adapter_model\.safetensors: 100 bytes, but the checkpoint wrote \d+ \(truncated or damaged\)/,
    );
    expect(said[2]).toMatch(/using the newest intact checkpoint instead: .*step-000001 \(step 1\)/);
    // nothing intact: refuse, listing every damaged checkpoint
    writeFileSync(join(dir, 'step-000001/state.json'), 'not json');
    await expect(
      newestIntactCheckpoint(
        dir,
        fresh.policy.adapters,
        async () => {},
        () => {},
      ),
    ).rejects.toThrow(/no intact checkpoint to resume from:\n.*step-000003.*\n.*step-000002.*\n.*step-000001/);
  });
});
