// The other commands end to end: eval on a user file (per-benchmark pass@1, transcripts), sweep (one run folder
// per grid point x seed, CSV summaries), verify (wired to the verifier), export --verl (YAML + non-portable knobs).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { fastFlags, writeRandomModel } from '../helpers/cli/random-model.ts';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/rema.mjs');
const model = writeRandomModel();
const rema = (...args: string[]) => spawnSync('node', [bin, ...args], { cwd: root, encoding: 'utf8' });

describe('rema eval / sweep / verify / export', () => {
  it('eval: greedy pass@1 on a user file, with transcripts', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'rema-eval-'));
    const file = join(tmp, 'mine.jsonl');
    writeFileSync(
      file,
      '{"question":"What is 2+3?","answer":"5","level":1}\n{"question":"What is 4*4?","answer":16,"level":2}\n',
    );
    const r = rema(
      'eval',
      '--preset',
      'tiny-default',
      ...fastFlags(model),
      '--file',
      file,
      '--out',
      join(tmp, 'out'),
      '--backend',
      'cpu',
      '--quiet',
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^mine\s+n=\s+2\s+pass@1 0\.00%/m);
    const summary = JSON.parse(readFileSync(join(tmp, 'out/eval_summary.json'), 'utf8')) as {
      results: { benchmark: string; n: number; by_level: Record<string, unknown> }[];
    };
    expect(summary.results[0]).toMatchObject({ benchmark: 'mine', n: 2 });
    expect(Object.keys(summary.results[0].by_level).toSorted()).toEqual(['Level 1', 'Level 2']);
    const transcripts = readFileSync(join(tmp, 'out/mine_rollouts.jsonl'), 'utf8').trim().split('\n');
    expect(transcripts.length).toBe(2);
    expect(JSON.parse(transcripts[1]).gold).toBe('16');
  });

  it('eval: a bad file names its line', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'rema-eval-'));
    const file = join(tmp, 'bad.jsonl');
    writeFileSync(file, '{"question":"q","answer":"1"}\n{"question":"q2"}\n');
    const r = rema(
      'eval',
      '--preset',
      'tiny-default',
      ...fastFlags(model),
      '--file',
      file,
      '--backend',
      'cpu',
      '--quiet',
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/bad\.jsonl:2: missing answer/);
  });

  it('sweep: grid x seeds -> one run each and CSV summaries', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'rema-sweep-')), 'sweep');
    const r = rema(
      'sweep',
      '--preset',
      'tiny-default',
      ...fastFlags(model),
      '--steps',
      '1',
      '--set',
      'evalEvery=1',
      '--grid',
      '{"ratio":["token","turn-geometric"]}',
      '--seeds',
      '0,1',
      '--out',
      out,
      '--backend',
      'cpu',
      '--quiet',
    );
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/summary\.csv: 4 runs/);
    expect(readdirSync(out).filter((d) => d.includes('__seed')).length).toBe(4);
    const csv = readFileSync(join(out, 'summary.csv'), 'utf8').trim().split('\n');
    expect(csv[0]).toBe(
      'label,ratio,seed,steps,reward_first,reward_last,reward_auc,eval_first,eval_last,eval_best,eval_n,tokens_trained,train_time_s,seeds,' +
        'reward_last_min,reward_last_max,reward_last_std,reward_auc_min,reward_auc_max,reward_auc_std,' +
        'eval_last_min,eval_last_max,eval_last_std,eval_best_min,eval_best_max,eval_best_std',
    );
    // 4 run rows, then one row per config: seed "all", 2 seeds, min <= mean <= max
    expect(csv.length).toBe(7);
    expect(csv[1]).toMatch(/^ratio=token,token,0,1,0,0,0,0,0,0,2,\d+,[\d.]+,,,,,,,,,,,,,$/);
    const header = csv[0].split(',');
    for (const [i, label] of [
      [5, 'ratio=token'],
      [6, 'ratio=turn-geometric'],
    ] as const) {
      const c = csv[i].split(',');
      expect(c.slice(0, 3)).toEqual([label, label.split('=')[1], 'all']);
      expect(c[header.indexOf('seeds')]).toBe('2');
      const col = (name: string) => Number(c[header.indexOf(name)]);
      expect(col('eval_last_min')).toBeLessThanOrEqual(col('eval_last'));
      expect(col('eval_last')).toBeLessThanOrEqual(col('eval_last_max'));
      expect(col('eval_last_std')).toBeGreaterThanOrEqual(0);
    }
    const byConfig = readFileSync(join(out, 'summary_by_config.csv'), 'utf8').trim().split('\n');
    expect(byConfig.length).toBe(3);
    expect(byConfig[2]).toMatch(/^ratio=turn-geometric,turn-geometric,2,/);
    // the overlaid curves: one series (mean line or point + min-max band) per config in each panel, one legend entry each
    const svg = readFileSync(join(out, 'curves.svg'), 'utf8');
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect([...svg.matchAll(/<g class="series" data-config="([^"]+)">/g)].map((m) => m[1])).toEqual([
      'ratio=token',
      'ratio=turn-geometric',
      'ratio=token',
      'ratio=turn-geometric',
    ]);
    expect([...svg.matchAll(/<g class="legend" data-config="([^"]+)">/g)].map((m) => m[1])).toEqual([
      'ratio=token',
      'ratio=turn-geometric',
    ]);
    expect(svg.match(/class="band"/g)?.length).toBe(4);
    const bad = rema('sweep', '--preset', 'tiny-default', '--grid', '{"ratio":["diagonal"]}', '--out', out);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/sweep grid point ratio=diagonal: invalid config:\n\s+field "ratio" must be one of/);
  });

  it('verify: one verdict per input line, in order', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'rema-verify-'));
    writeFileSync(
      join(tmp, 'in.jsonl'),
      '{"gold":"\\\\frac{1}{2}","pred":"so the answer is \\\\boxed{0.5}"}\n{"gold":"3","pred":"\\\\boxed{4}"}\n',
    );
    const r = rema('verify', '--in', join(tmp, 'in.jsonl'), '--out', join(tmp, 'out.jsonl'));
    expect(r.status).toBe(0);
    const out = readFileSync(join(tmp, 'out.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { verdict: boolean });
    expect(out.map((o) => o.verdict)).toEqual([true, false]);
  });

  it('export --verl: YAML on stdout, non-portable knobs on stderr', () => {
    const r = rema('export', '--verl', '--preset', 'ablation-separate-params');
    expect(r.status).toBe(0);
    const y = parse(r.stdout) as { algorithm: { switch_agent: { enable: boolean } } };
    expect(y.algorithm.switch_agent.enable).toBe(true);
    expect(r.stderr).toMatch(/knobs that do not port:\n(\s+- .*\n)*\s+- finetune "lora"/);
    expect(rema('export', '--preset', 'vrp').stderr).toMatch(/choose a target \(--verl\)/);
  });
});
