// `rema doctor --backend webgpu`: the GPU self-test (engine/gpu-check) on the adapter Dawn finds, with the golden
// fixtures shipped in public/gpu-check (or another folder of fixture folders), printed as lines or as one JSON
// object. Exit status 2 when a check fails, so a script can gate on it.
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { formatGpuCheck } from '../engine/gpu-check/format.ts';
import { runGpuCheck, type GpuCheckReport } from '../engine/gpu-check/report.ts';
import { directoryFileSource } from './fs-source.ts';
import { REPO_ROOT } from './setup.ts';
import { requestDawnDevice } from './webgpu-device.ts';

export const SHIPPED_FIXTURES_DIR = resolve(REPO_ROOT, 'public/gpu-check');

export interface DoctorOptions {
  /** a folder of fixture folders (each with config.json, model.safetensors, golden.safetensors) */
  fixtures?: string;
  json?: boolean;
  /** false skips the speed probe */
  speed?: boolean;
  quiet?: boolean;
}

/** The fixture folders under `dir`, sorted; throws when there are none. */
export function fixtureFolders(dir: string): string[] {
  const names = existsSync(dir)
    ? readdirSync(dir)
        .filter((n) => existsSync(join(dir, n, 'golden.safetensors')))
        .toSorted()
    : [];
  if (names.length === 0) throw new Error(`rema doctor: no fixture folders (with golden.safetensors) under ${dir}`);
  return names;
}

/** Runs the self-test, writes the report to stdout and returns it. */
export async function runDoctor(o: DoctorOptions): Promise<GpuCheckReport> {
  const dir = resolve(o.fixtures ?? SHIPPED_FIXTURES_DIR);
  const fixtures = fixtureFolders(dir).map((n) => directoryFileSource(join(dir, n), n));
  const dawn = await requestDawnDevice();
  try {
    const report = await runGpuCheck({
      adapter: dawn.adapter,
      device: dawn.device,
      fixtures,
      speed: o.speed,
      onProgress: o.quiet ? undefined : (step) => process.stderr.write(`${step}\n`),
    });
    process.stdout.write(o.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatGpuCheck(report).join('\n')}\n`);
    return report;
  } finally {
    dawn.device.destroy();
  }
}
