// The page's training step next to the CLI's, measured in the same run: the playground page as `npm start` serves
// it (vite build into a temporary folder, vite preview with its cross-origin isolation headers) in Debian's
// Chromium trains the tiny-default preset for N steps (no evaluations) on the WASM backend, and `rema train` (a
// child process, the same preset, seed and backend) trains the same N steps. Prints, per side, the median and mean
// wall time between consecutive steps (the first step, with its warm-up, left out) and the CPU seconds per step of
// every thread of the processes involved, then the ratio page / CLI.
// The page's side comes from its "rema:step" marks (src/app/util/step-marks.ts): each step's trainer time, the
// device-loss copy, the worker's time between two steps (the followed problem's refresh, the job queue), the
// message's latency and the main thread's own recording time. Thread CPU is read from /proc/PID/task/TID/schedstat
// of every Chromium process (the browser, GPU, utility and renderer processes, whose ids Chromium reports over CDP;
// IndexedDB is written in the browser's storage service) and of the CLI's process.
//   node --import tsx bench/browser/page-train.ts [--steps 20] [--dist DIR] [--backend wasm|webgpu|auto]
//     [--skip-cli] [--hash 'key=value&...' (more URL settings)] [--profile]
// --profile: a CPU profile of the page's main thread over the measured steps (CDP Profiler), its functions with
// the most self time printed and the profile written to bench/results/tmp/page-main.cpuprofile.
// Writes bench/results/page.json.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from '@playwright/test';
import { serveBuiltPage } from './serve-built.ts';
import type { StepMarkDetail } from '../../src/app/util/step-marks.ts';

const root = resolve(import.meta.dirname, '../..');
const argv = process.argv.slice(2);
const arg = (flag: string, fallback: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : fallback);
const steps = Number(arg('--steps', '20'));
const backend = arg('--backend', 'wasm');
const dist = argv.includes('--dist') ? resolve(arg('--dist', '')) : null;
const skipCli = argv.includes('--skip-cli');
const extraHash = arg('--hash', '');
const profile = argv.includes('--profile');
if (!(steps >= 3)) throw new Error('page-train: --steps must be at least 3');
const SETTINGS = { preset: 'tiny-default', evalEvery: '0', evalBeforeTrain: 'false' };

const median = (xs: number[]) => {
  const s = xs.toSorted((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const r3 = (x: number) => +x.toFixed(3);

/** CPU nanoseconds of every thread of `pids`, keyed "process/thread-name#tid". */
function threadCpu(pids: Array<{ pid: number; label: string }>): Map<string, number> {
  const out = new Map<string, number>();
  for (const { pid, label } of pids) {
    const dir = `/proc/${pid}/task`;
    if (!existsSync(dir)) continue;
    for (const tid of readdirSync(dir)) {
      try {
        const ns = Number(readFileSync(`${dir}/${tid}/schedstat`, 'utf8').split(' ')[0]);
        const name = readFileSync(`${dir}/${tid}/comm`, 'utf8').trim();
        out.set(`${label}/${name}#${tid}`, ns);
      } catch {
        // the thread ended
      }
    }
  }
  return out;
}

/** CPU seconds per step between two snapshots, grouped by process and thread name, largest first. */
function cpuPerStep(a: Map<string, number>, b: Map<string, number>, n: number): Record<string, number> {
  const grouped = new Map<string, number>();
  for (const [key, ns] of b) {
    const name = key.replace(/#\d+$/, '');
    grouped.set(name, (grouped.get(name) ?? 0) + (ns - (a.get(key) ?? 0)));
  }
  return Object.fromEntries(
    [...grouped]
      .map(([k, ns]) => [k, ns / 1e9 / n] as const)
      .filter(([, s]) => s >= 0.001)
      .toSorted((x, y) => y[1] - x[1])
      .map(([k, s]) => [k, r3(s)]),
  );
}

const sum = (o: Record<string, number>) => r3(Object.values(o).reduce((a, b) => a + b, 0));

function servePage(): Promise<{ url: string; close: () => Promise<void> }> {
  return serveBuiltPage(dist, 'rema-page-train-');
}

async function chromiumPids(browser: Browser): Promise<Array<{ pid: number; label: string }>> {
  const cdp = await browser.newBrowserCDPSession();
  const { processInfo } = (await cdp.send('SystemInfo.getProcessInfo')) as {
    processInfo: Array<{ type: string; id: number }>;
  };
  await cdp.detach();
  return processInfo.map((p) => ({ pid: p.id, label: p.type === 'renderer' ? `renderer ${p.id}` : p.type }));
}

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  samples: number[];
  timeDeltas: number[];
}

/** The main thread's functions with the most self time, ms per step. */
function printProfile(p: CpuProfile, n: number): void {
  mkdirSync(join(root, 'bench/results/tmp'), { recursive: true });
  writeFileSync(join(root, 'bench/results/tmp/page-main.cpuprofile'), JSON.stringify(p));
  const byId = new Map(p.nodes.map((node) => [node.id, node.callFrame]));
  const self = new Map<string, number>();
  p.samples.forEach((id, i) => {
    const f = byId.get(id)!;
    const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').at(-1)}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
  });
  const top = [...self].filter(([k]) => !k.startsWith('(idle)')).toSorted((a, b) => b[1] - a[1]);
  const busy = top.reduce((a, [, ms]) => a + ms, 0);
  console.log(`page main thread: ${(busy / n).toFixed(1)} ms busy per step; most self time (ms per step):`);
  for (const [k, ms] of top.slice(0, 25)) console.log(`  ${(ms / n).toFixed(1).padStart(7)}  ${k}`);
}

const stepMarks = (page: Page) =>
  page.evaluate(() => performance.getEntriesByName('rema:step').map((m) => (m as PerformanceMark).detail));

async function pageSide(browser: Browser, url: string) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  const hash = new URLSearchParams({ ...SETTINGS, steps: '1000', backend });
  await page.goto(`${url}#${hash}${extraHash ? `&${extraHash}` : ''}`);
  await page.locator('[data-testid=status][data-status=idle]').waitFor({ timeout: 180_000 });
  await page.getByTestId('train').waitFor({ state: 'visible' });
  const backendText = (await page.getByTestId('backend').getAttribute('title')) ?? '';
  const isolated = await page.evaluate(() => crossOriginIsolated);
  const pids = await chromiumPids(browser);
  await page.getByTestId('train').click();
  const waitSteps = (n: number) =>
    page.waitForFunction((k) => performance.getEntriesByName('rema:step').length >= k, n, {
      timeout: 0,
      polling: 50,
    });
  await waitSteps(1);
  const cdp = profile ? await context.newCDPSession(page) : null;
  if (cdp) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
    await cdp.send('Profiler.start');
  }
  const cpu0 = threadCpu(pids);
  const t0 = performance.now();
  await waitSteps(steps);
  const cpu1 = threadCpu(pids);
  if (cdp) printProfile(((await cdp.send('Profiler.stop')) as { profile: CpuProfile }).profile, steps - 1);
  const wall = (performance.now() - t0) / 1000;
  await page.getByTestId('pause').click();
  const marks = ((await stepMarks(page)) as StepMarkDetail[]).slice(0, steps);
  await context.close();
  const later = marks.slice(1);
  const intervals = later.map((m, i) => (m.received_at - marks[i].received_at) / 1000);
  const t = (f: (m: StepMarkDetail, i: number) => number) => r3(mean(later.map(f)) / 1000);
  const stages = Object.fromEntries(
    Object.keys(marks[0].time_s).map((k) => [
      k,
      r3(mean(later.map((m) => m.time_s[k as keyof StepMarkDetail['time_s']]))),
    ]),
  );
  const cpu = cpuPerStep(cpu0, cpu1, steps - 1);
  return {
    backend: backendText,
    cross_origin_isolated: isolated,
    step_s_median: r3(median(intervals)),
    step_s_mean: r3(mean(intervals)),
    wall_s: r3(wall),
    per_step_mean_s: {
      trainer: t((m) => m.timing?.trainer_ms ?? NaN),
      explain_rescore: t((m) => m.explain_s * 1000),
      device_loss_copy: t((m) => m.timing?.keep_ms ?? NaN),
      worker_between_steps: t((m, i) => (m.timing?.started_at ?? NaN) - (marks[i].timing?.sent_at ?? NaN)),
      message_latency: t((m) => m.received_at - (m.timing?.sent_at ?? NaN)),
      main_thread_record: t((m) => m.record_ms),
    },
    stages_s: stages,
    cpu_s_per_step: cpu,
    cpu_s_per_step_total: sum(cpu),
  };
}

/** `rema train` in a child process: the wall time between its per-step lines and its threads' CPU. */
async function cliSide() {
  const out = mkdtempSync(join(tmpdir(), 'rema-page-train-cli-'));
  const args = [
    join(root, 'bin/rema.mjs'),
    'train',
    '--preset',
    SETTINGS.preset,
    '--steps',
    String(steps),
    '--set',
    `evalEvery=${SETTINGS.evalEvery}`,
    '--set',
    `evalBeforeTrain=${SETTINGS.evalBeforeTrain}`,
    '--backend',
    backend === 'auto' ? 'wasm' : backend,
    '--out',
    out,
  ];
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'inherit', 'pipe'] });
  const times: number[] = [];
  let cpu0 = new Map<string, number>();
  let cpu1 = new Map<string, number>();
  let backendLine = '';
  let buffered = '';
  const pid = [{ pid: child.pid!, label: 'cli' }];
  child.stderr.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (/^step \d+/.test(line)) {
        times.push(performance.now());
        if (times.length === 1) cpu0 = threadCpu(pid);
        if (times.length === steps) cpu1 = threadCpu(pid);
      } else if (/backend/i.test(line) && !backendLine) backendLine = line.trim();
    }
  });
  const code = await new Promise<number | null>((ok) => child.on('close', ok));
  rmSync(out, { recursive: true, force: true });
  if (code !== 0 || times.length < steps) throw new Error(`rema train exited with ${code} after ${times.length} steps`);
  const intervals = times.slice(1).map((t, i) => (t - times[i]) / 1000);
  const cpu = cpuPerStep(cpu0, cpu1, steps - 1);
  return {
    backend: backendLine,
    step_s_median: r3(median(intervals)),
    step_s_mean: r3(mean(intervals)),
    cpu_s_per_step: cpu,
    cpu_s_per_step_total: sum(cpu),
  };
}

const loadBefore = loadavg().map((x) => +x.toFixed(2));
const server = await servePage();
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--enable-unsafe-webgpu', '--disable-background-networking', '--disable-component-update'],
});
let pageResult: Awaited<ReturnType<typeof pageSide>>;
try {
  console.log(`page: ${SETTINGS.preset}, ${steps} steps, backend ${backend} ...`);
  pageResult = await pageSide(browser, server.url);
} finally {
  await browser.close();
  await server.close();
}
console.log(JSON.stringify({ page: pageResult }, null, 2));
let cliResult: Awaited<ReturnType<typeof cliSide>> | null = null;
if (!skipCli) {
  console.log(`cli: rema train --preset ${SETTINGS.preset} --steps ${steps} ...`);
  cliResult = await cliSide();
  console.log(JSON.stringify({ cli: cliResult }, null, 2));
}
const ratio = cliResult ? r3(pageResult.step_s_median / cliResult.step_s_median) : null;
const cpuRatio = cliResult ? r3(pageResult.cpu_s_per_step_total / cliResult.cpu_s_per_step_total) : null;
console.log(
  `step time (median of steps 2..${steps}): page ${pageResult.step_s_median} s, CLI ${cliResult?.step_s_median ?? '-'} s, ` +
    `page / CLI ${ratio ?? '-'}; CPU s per step: page ${pageResult.cpu_s_per_step_total}, ` +
    `CLI ${cliResult?.cpu_s_per_step_total ?? '-'}, page / CLI ${cpuRatio ?? '-'}`,
);
const result = {
  date: new Date().toISOString(),
  preset: SETTINGS.preset,
  steps,
  backend,
  load_average: { before: loadBefore, after: loadavg().map((x) => +x.toFixed(2)) },
  page: pageResult,
  cli: cliResult,
  ratio_page_vs_cli: ratio,
  cpu_ratio_page_vs_cli: cpuRatio,
};
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/page.json'), JSON.stringify(result, null, 2) + '\n');
console.log('wrote bench/results/page.json');
