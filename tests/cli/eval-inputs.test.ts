// `rema eval` inputs through the real CLI (bin/rema.mjs in child processes): a checkpoint evaluated under a
// config that trains other parameters is refused naming the fields and both values; unknown benchmarks, bad
// problem files and an unwritable --out are one line each, before any model loads (the model path here does not
// exist, so reaching the model would fail otherwise); results are printed before the files are written; a
// problem of a few hundred KB is evaluated (over the prompt cap) instead of overflowing the stack.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fastFlags, writeRandomModel } from '../helpers/cli/random-model.ts';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/rema.mjs');
const model = writeRandomModel();
const rema = (...args: string[]) => spawnSync('node', [bin, ...args], { cwd: root, encoding: 'utf8' });
const evaluate = (...args: string[]) =>
  rema('eval', '--preset', 'tiny-default', ...fastFlags(model), '--backend', 'cpu', '--quiet', ...args);
/** an eval whose model does not exist: anything that gets as far as loading it fails with "does not exist" */
const noModel = (...args: string[]) =>
  rema(
    'eval',
    '--preset',
    'tiny-default',
    '--set',
    'modelSource=local',
    '--set',
    `model=${join(tmpdir(), 'rema-no-such-model')}`,
    '--quiet',
    ...args,
  );

let tmp = '';
let run = '';
let problems = '';

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'rema-eval-inputs-'));
  problems = join(tmp, 'mine.jsonl');
  writeFileSync(problems, '{"question":"What is 2+3?","answer":"5"}\n');
  run = join(tmp, 'run');
  const trained = rema(
    'train',
    '--preset',
    'tiny-default',
    ...fastFlags(model),
    '--steps',
    '1',
    '--backend',
    'cpu',
    '--out',
    run,
    '--quiet',
  );
  expect(trained.status).toBe(0);
});

describe('rema eval inputs', () => {
  it('refuses a checkpoint trained under other parameters, naming the fields and both values', () => {
    const shared = evaluate('--file', problems, '--checkpoint', run, '--set', 'paramMode=separate');
    expect(shared.status).toBe(1);
    expect(shared.stderr).toBe(
      `rema: --checkpoint ${run}: the checkpoint does not match this evaluation's config: paramMode is "shared" in ${run}/config.json but "separate" here ` +
        `(evaluate it under the run's config: --config ${run}/config.json)\n`,
    );
    const step = join(run, 'checkpoints/step-000001');
    const full = evaluate('--file', problems, '--checkpoint', step, '--set', 'finetune=full');
    expect(full.status).toBe(1);
    expect(full.stderr).toMatch(/finetune is "lora" in .*run\/config\.json but "full" here/);
    const rank = evaluate('--file', problems, '--checkpoint', run, '--set', 'loraRank=4', '--set', 'loraAlpha=3');
    expect(rank.stderr).toMatch(
      /loraRank is 8 in .*config\.json but 4 here; loraAlpha is 16 in .*config\.json but 3 here/,
    );
    // the run's own config evaluates it
    const same = evaluate('--file', problems, '--checkpoint', run);
    expect(same.stderr).toBe('');
    expect(same.stdout).toMatch(/^mine\s+n=\s+1\s+pass@1/m);
  });

  it('refuses unknown benchmarks, bad problem lines and an unwritable --out in one line, before loading the model', () => {
    const unknown = noModel('--benchmarks', 'tiny-arith,nope');
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/^rema: unknown benchmark "nope"; known: [^\n]*\n$/);
    const bad = join(tmp, 'bad.jsonl');
    writeFileSync(bad, '{"question":"q","answer":"1"}\n{"question":"q2"}\n');
    const badFile = noModel('--file', bad);
    expect(badFile.status).toBe(1);
    expect(badFile.stderr).toMatch(new RegExp(`^rema: ${bad}:2: missing answer[^\\n]*\\n$`));
    const notDir = join(tmp, 'a-file');
    writeFileSync(notDir, '');
    const out = noModel('--file', problems, '--out', join(notDir, 'sub'));
    expect(out.status).toBe(1);
    expect(out.stderr).toBe(
      `rema: --out ${join(notDir, 'sub')}: cannot write there (ENOTDIR: not a directory, mkdir '${join(notDir, 'sub')}')\n`,
    );
  });

  it('prints the results before writing the files, so a full disk loses no result', () => {
    const out = join(tmp, 'out-full');
    mkdirSync(out);
    symlinkSync('/dev/full', join(out, 'mine_rollouts.jsonl'));
    const r = evaluate('--file', problems, '--out', out);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^mine\s+n=\s+1\s+pass@1 0\.00%$/m);
    expect(r.stderr).toBe(
      `rema: ${join(out, 'mine_rollouts.jsonl')}: cannot write (ENOSPC: no space left on device, write)\n`,
    );
  });

  it('evaluates a problem of a few hundred KB (over the prompt cap: an overflow, not a crash)', () => {
    const big = join(tmp, 'big.jsonl');
    writeFileSync(
      big,
      `${JSON.stringify({ question: 'Ann has 3 apples and buys 12 more. '.repeat(10_000) + 'How many?', answer: '15' })}\n`,
    );
    const r = evaluate('--file', big, '--out', join(tmp, 'out-big'));
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^big\s+n=\s+1\s+pass@1 0\.00%$/m);
    const transcript = JSON.parse(readFileSync(join(tmp, 'out-big/big_rollouts.jsonl'), 'utf8')) as {
      finish_reason: string;
      turns: unknown[];
    };
    // the protocol's prompt cap: the episode ends before any turn is generated (ReMA's completion_token_exceeded)
    expect(transcript.finish_reason).toBe('completion_token_exceeded');
    expect(transcript.turns).toEqual([]);
  });
});
