// The GPU self-test's report as the lines a person reads (the CLI prints them; the page shows them above the JSON).
import type { GpuCheckReport } from './report.ts';

/** The limits a reader of a GPU report looks at first (the rest are in the JSON). */
const KEY_LIMITS = [
  'maxBufferSize',
  'maxStorageBufferBindingSize',
  'maxStorageBuffersPerShaderStage',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupsPerDimension',
];

const MiB = 1024 * 1024;

function limitText(name: string, value: number): string {
  return name.endsWith('Size') && value >= MiB && name !== 'maxComputeWorkgroupStorageSize'
    ? `${name} ${(value / MiB).toFixed(0)} MiB`
    : `${name} ${value}`;
}

/** adapter, limits, features, subgroup sizes and the engine's choices: a line each */
export function gpuLines(r: GpuCheckReport): string[] {
  const a = r.adapter;
  return [
    `adapter: ${[a.vendor, a.architecture, a.device, a.description].filter(Boolean).join(' / ') || 'no adapter information'}${a.software ? ' (software)' : ''}`,
    `limits: ${KEY_LIMITS.filter((k) => k in r.limits)
      .map((k) => limitText(k, r.limits[k]))
      .join(', ')}`,
    `features: ${r.features.join(', ') || 'none'}`,
    `subgroup sizes: ${r.subgroup_sizes ? `${r.subgroup_sizes.min}-${r.subgroup_sizes.max}` : 'not reported'}`,
    `engine: ${r.engine.backend}; base weights checked as ${r.engine.storages.join(' and ')}; fixtures ${r.fixtures.join(', ')}`,
  ];
}

/** pass / FAIL, the kernel class, its worst error (or why it failed) and its tolerance: a line per check */
export function checkLines(r: GpuCheckReport): string[] {
  return r.checks.map((c) => {
    const figure = c.worst_error === null ? (c.error ?? 'failed') : `worst ${c.worst_error.toExponential(1)}`;
    return `${c.ok ? 'pass' : 'FAIL'}  ${c.name.padEnd(19)} ${figure} (tolerance ${c.tolerance.toExponential(0)})`;
  });
}

/** the speed probe's figures, or why it failed; null when it did not run */
export function speedLine(r: GpuCheckReport): string | null {
  if (r.speed === null) return null;
  if ('error' in r.speed) return `speed probe failed: ${r.speed.error}`;
  const { matmul: m, decode: d } = r.speed;
  return (
    `speed: matmul ${m.M}x${m.N}x${m.K} ${m.gflops} GFLOP/s; decode ${d.tok_s} tok/s ` +
    `(${(d.parameters / 1e6).toFixed(1)}M-parameter model, 1 sequence)`
  );
}

export function verdictLine(r: GpuCheckReport): string {
  return `${r.ok ? 'ok' : 'NOT OK'}: ${r.checks.filter((c) => c.ok).length}/${r.checks.length} checks passed in ${r.seconds} s`;
}

export function formatGpuCheck(r: GpuCheckReport): string[] {
  const speed = speedLine(r);
  return [...gpuLines(r), ...checkLines(r), ...(speed === null ? [] : [speed]), verdictLine(r)];
}
