// The GPU self-test a user runs on their own adapter (the page's "Check this GPU", `rema doctor --backend webgpu`):
// what the adapter is and offers, every kernel class against the shipped golden fixtures with the kernels the
// engine picks there by default (and both storages of the base weights it may use), and a short speed probe. The
// report is plain JSON (docs/backends.md, "GPU self-test") so a user can paste it into a bug report.
import type { FileSource } from '../../util/file-source.ts';
import { WebGpuBackend } from '../backends/webgpu.ts';
import { isSoftwareGpu, type WebGpuBackendOptions } from '../backends/webgpu/options.ts';
import { CHECK_CLASSES } from './golden-checks.ts';
import { loadGoldenFixture, type GoldenFixture } from './golden-fixture.ts';
import { probeSpeed, type SpeedProbe } from './speed-probe.ts';
import { GPU_CHECK_TOLERANCES, type CheckTolerances, type StorageType } from './tolerances.ts';

/** What the self-test reads of the adapter (a GPUAdapter, or the same fields from elsewhere). */
export interface GpuView {
  info: GPUAdapterInfo;
  limits: GPUSupportedLimits;
  features: ReadonlySet<string>;
}

export interface GpuCheckInput {
  adapter: GpuView;
  /** a device from this adapter, requested as the engine requests it (engineDeviceDescriptor) */
  device: GPUDevice;
  /** golden fixture folders (config.json, model.safetensors, golden.safetensors) */
  fixtures: readonly FileSource[];
  /** replace the backend's defaults (tests force other kernels or storages) */
  backendOptions?: WebGpuBackendOptions;
  /** replace GPU_CHECK_TOLERANCES (tests of a failing check) */
  tolerances?: Readonly<Record<StorageType, CheckTolerances>>;
  /** false skips the speed probe */
  speed?: boolean;
  /** a line per step, as it starts */
  onProgress?: (step: string) => void;
}

export interface CheckResult {
  /** kernel class / storage of the base weights, e.g. "decode/f16" */
  name: string;
  ok: boolean;
  /** max |engine - golden| / max |golden| over the fixtures' compared tensors; null when it threw or gave NaN */
  worst_error: number | null;
  tolerance: number;
  /** what the class's kernels are */
  what: string;
  /** why it failed without an error figure */
  error?: string;
}

export interface GpuCheckReport {
  adapter: { vendor: string; architecture: string; device: string; description: string; software: boolean };
  limits: Record<string, number>;
  features: string[];
  subgroup_sizes: { min: number; max: number } | null;
  /** the engine's default choices on this adapter, which the checks ran */
  engine: { backend: string; storages: StorageType[]; kernels: Record<string, unknown>; device_features: string[] };
  fixtures: string[];
  checks: CheckResult[];
  speed: SpeedProbe | { error: string } | null;
  /** every check passed (and the speed probe, when run, did not fail) */
  ok: boolean;
  seconds: number;
}

/** Every numeric limit the adapter reports, by name. */
export function limitsRecord(limits: GPUSupportedLimits): Record<string, number> {
  const out: Record<string, number> = {};
  // the limits are attributes of the object's prototype (WebIDL), which for-in walks and Object.keys does not
  for (const key in limits) {
    const value = (limits as unknown as Record<string, unknown>)[key];
    if (typeof value === 'number') out[key] = value;
  }
  return Object.fromEntries(Object.entries(out).toSorted(([a], [b]) => a.localeCompare(b)));
}

/** The adapter's [min, max] subgroup sizes as its info reports them, or null. */
function reportedSubgroups(info: GPUAdapterInfo): { min: number; max: number } | null {
  const i = info as GPUAdapterInfo & { subgroupMinSize?: number; subgroupMaxSize?: number };
  return i.subgroupMinSize && i.subgroupMaxSize ? { min: i.subgroupMinSize, max: i.subgroupMaxSize } : null;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export async function runGpuCheck(input: GpuCheckInput): Promise<GpuCheckReport> {
  const t0 = performance.now();
  const progress = input.onProgress ?? (() => {});
  const tolerances = input.tolerances ?? GPU_CHECK_TOLERANCES;
  const { info } = input.adapter;
  const newBackend = () => WebGpuBackend.create(input.device, { gpuInfo: info, ...input.backendOptions });
  let be = newBackend();
  const storages: StorageType[] = be.prefersF16 ? ['f32', 'f16'] : ['f32'];
  const report: GpuCheckReport = {
    adapter: {
      vendor: info.vendor,
      architecture: info.architecture,
      device: info.device,
      description: info.description,
      software: isSoftwareGpu(info),
    },
    limits: limitsRecord(input.adapter.limits),
    features: [...input.adapter.features].toSorted(),
    subgroup_sizes: reportedSubgroups(info),
    engine: {
      backend: be.description,
      storages,
      kernels: { ...be.tuning, asyncPipelines: be.asyncPipelines },
      device_features: [...input.device.features].toSorted(),
    },
    fixtures: [],
    checks: [],
    speed: null,
    ok: false,
    seconds: 0,
  };
  const fixtures: GoldenFixture[] = [];
  for (const source of input.fixtures) {
    progress(`reading ${source.name}`);
    fixtures.push(await loadGoldenFixture(source));
  }
  if (fixtures.length === 0) throw new Error('GPU self-test: no golden fixtures given');
  report.fixtures = fixtures.map((f) => f.name);
  for (const storage of storages) {
    for (const cls of CHECK_CLASSES) {
      if (cls.f32Only && storage !== 'f32') continue;
      const name = `${cls.kind}/${storage}`;
      const tolerance = tolerances[storage][cls.bound];
      progress(`checking ${name}`);
      let worst = 0;
      let error: string | undefined;
      for (const fx of fixtures) {
        try {
          const e = await cls.run(be, fx, storage);
          await be.sync(); // an asynchronous device error fails the check that caused it
          if (Number.isNaN(e)) error = `${fx.name}: NaN among the compared values`;
          else worst = Math.max(worst, e);
        } catch (e) {
          error = `${fx.name}: ${message(e)}`;
          be.destroy(); // a device error stays with its backend: the next check starts on a fresh one
          be = newBackend();
        }
        if (error) break;
      }
      report.checks.push({
        name,
        ok: error === undefined && worst <= tolerance,
        worst_error: error === undefined ? Number(worst.toPrecision(3)) : null,
        tolerance,
        what: cls.what,
        ...(error === undefined ? {} : { error }),
      });
    }
  }
  if (input.speed !== false) {
    try {
      report.speed = await probeSpeed(be, progress);
    } catch (e) {
      report.speed = { error: message(e) };
    }
  }
  be.destroy();
  report.ok = report.checks.every((c) => c.ok) && !(report.speed && 'error' in report.speed);
  report.seconds = Number(((performance.now() - t0) / 1000).toFixed(1));
  return report;
}
