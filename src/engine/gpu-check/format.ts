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

export function formatGpuCheck(r: GpuCheckReport): string[] {
  const a = r.adapter;
  const lines = [
    `adapter: ${[a.vendor, a.architecture, a.device, a.description].filter(Boolean).join(' / ') || 'no adapter information'}${a.software ? ' (software)' : ''}`,
    `limits: ${KEY_LIMITS.filter((k) => k in r.limits)
      .map((k) => limitText(k, r.limits[k]))
      .join(', ')}`,
    `features: ${r.features.join(', ') || 'none'}`,
    `subgroup sizes: ${r.subgroup_sizes ? `${r.subgroup_sizes.min}-${r.subgroup_sizes.max}` : 'not reported'}`,
    `engine: ${r.engine.backend}; base weights checked as ${r.engine.storages.join(' and ')}; fixtures ${r.fixtures.join(', ')}`,
  ];
  for (const c of r.checks) {
    const figure = c.worst_error === null ? (c.error ?? 'failed') : `worst ${c.worst_error.toExponential(1)}`;
    lines.push(`${c.ok ? 'pass' : 'FAIL'}  ${c.name.padEnd(19)} ${figure} (tolerance ${c.tolerance.toExponential(0)})`);
  }
  if (r.speed && 'error' in r.speed) lines.push(`speed probe failed: ${r.speed.error}`);
  else if (r.speed) {
    const { matmul: m, decode: d } = r.speed;
    lines.push(
      `speed: matmul ${m.M}x${m.N}x${m.K} ${m.gflops} GFLOP/s; decode ${d.tok_s} tok/s ` +
        `(${(d.parameters / 1e6).toFixed(1)}M-parameter model, 1 sequence)`,
    );
  }
  lines.push(
    `${r.ok ? 'ok' : 'NOT OK'}: ${r.checks.filter((c) => c.ok).length}/${r.checks.length} checks passed in ${r.seconds} s`,
  );
  return lines;
}
