// The page's GPU self-test runs in its own Web Worker, so the page stays responsive and a training run's worker
// keeps its device: it requests the adapter and a device as the engine does, reads the shipped golden fixtures
// from the page's origin (public/gpu-check) and runs engine/gpu-check, posting each step and then the report.
import { engineDeviceDescriptor } from '../../engine/backends/webgpu/device-request.ts';
import { SHIPPED_GPU_CHECK_FIXTURES } from '../../engine/gpu-check/golden-fixture.ts';
import { runGpuCheck } from '../../engine/gpu-check/report.ts';
import { httpFolderSource } from '../model/file-sources.ts';
import type { GpuCheckEvent } from './gpu-check-client.ts';
import { siteRoot } from './site-root.ts';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const emit = (e: GpuCheckEvent) => scope.postMessage(e);
const base = siteRoot(scope.location.origin);

async function check(): Promise<void> {
  const gpu = scope.navigator.gpu;
  if (!gpu) throw new Error('this browser has no WebGPU (navigator.gpu is missing)');
  emit({ type: 'progress', step: 'requesting the adapter' });
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) throw new Error('no WebGPU adapter');
  const device = await adapter.requestDevice(engineDeviceDescriptor(adapter, 'rema-gpu-check'));
  try {
    const report = await runGpuCheck({
      adapter,
      device,
      fixtures: SHIPPED_GPU_CHECK_FIXTURES.map((n) => httpFolderSource(`${base}gpu-check/${n}`, n)),
      onProgress: (step) => emit({ type: 'progress', step }),
    });
    emit({ type: 'done', report });
  } finally {
    device.destroy();
  }
}

scope.addEventListener('message', () => {
  check().catch((e: unknown) => emit({ type: 'failed', message: e instanceof Error ? e.message : String(e) }));
});
