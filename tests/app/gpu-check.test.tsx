// @vitest-environment happy-dom
// "Check this GPU" as the page shows the worker's answers (the run itself is tests/e2e/gpu-check.spec.ts): the steps
// while it runs, a report with a failed kernel class as a FAIL line with its error and a failing verdict, "Copy
// JSON" copying that report, the worker ended once it answered; and a worker that reports it could not run, or
// cannot be created at all, as a notice with the button enabled again.
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, expect, it, vi } from 'vitest';
import { GpuCheck } from '../../src/app/components/GpuCheck.tsx';
import type { GpuCheckEvent } from '../../src/app/worker/gpu-check-client.ts';
import type { GpuCheckReport } from '../../src/engine/gpu-check/report.ts';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** A stand-in for the self-test worker: the test sends its events. */
class FakeWorker extends EventTarget {
  static last: FakeWorker | null = null;
  posted: unknown[] = [];
  terminated = false;
  constructor() {
    super();
    FakeWorker.last = this;
  }
  postMessage(message: unknown): void {
    this.posted.push(message);
  }
  terminate(): void {
    this.terminated = true;
  }
  send(event: GpuCheckEvent): void {
    act(() => {
      this.dispatchEvent(new MessageEvent('message', { data: event }));
    });
  }
}

const report: GpuCheckReport = {
  adapter: { vendor: 'v', architecture: 'a', device: 'd', description: 'desc', software: false },
  limits: { maxBufferSize: 2 ** 31, maxStorageBufferBindingSize: 2 ** 30 },
  features: ['shader-f16', 'subgroups'],
  subgroup_sizes: { min: 32, max: 64 },
  engine: { backend: 'v / a', storages: ['f32', 'f16'], kernels: { tiled: 4 }, device_features: ['shader-f16'] },
  fixtures: ['llama-gqa4-headdim'],
  checks: [
    { name: 'forward/f32', ok: true, worst_error: 4.4e-7, tolerance: 4e-5, what: 'prefill forward' },
    {
      name: 'decode/f16',
      ok: false,
      worst_error: null,
      tolerance: 2e-3,
      what: 'decoding',
      error: 'llama-gqa4-headdim: pipeline rejected',
    },
  ],
  speed: {
    matmul: { M: 128, N: 1024, K: 512, ms: 0.05, gflops: 2680 },
    decode: { parameters: 4196608, prompt: 8, new_tokens: 16, ms_per_token: 2, tok_s: 500 },
  },
  ok: false,
  seconds: 4.2,
};

it('shows the steps, then a failed class with its error, the verdict, and copies the report as JSON', async () => {
  vi.stubGlobal('Worker', FakeWorker);
  const writeText = vi.fn(async () => {});
  vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
  render(<GpuCheck />);
  fireEvent.click(screen.getByTestId('gpu-check-run'));
  const worker = FakeWorker.last!;
  expect(worker.posted).toHaveLength(1);
  expect((screen.getByTestId('gpu-check-run') as HTMLButtonElement).disabled).toBe(true);
  worker.send({ type: 'progress', step: 'checking decode/f16' });
  expect(screen.getByTestId('gpu-check-step').textContent).toBe('checking decode/f16…');
  worker.send({ type: 'done', report });
  await screen.findByTestId('gpu-check-result');
  expect(worker.terminated).toBe(true);
  expect(screen.getByTestId('gpu-check-verdict').textContent).toBe('1 kernel class(es) FAILED');
  const lines = screen.getByTestId('gpu-check-lines').textContent!;
  expect(lines).toMatch(/^pass +forward\/f32 +worst 4\.4e-7 \(tolerance 4e-5\)$/m);
  expect(lines).toMatch(/^FAIL +decode\/f16 +llama-gqa4-headdim: pipeline rejected \(tolerance 2e-3\)$/m);
  expect(lines).toContain('speed: matmul 128x1024x512 2680 GFLOP/s; decode 500 tok/s');
  expect(lines).toMatch(/^NOT OK: 1\/2 checks passed in 4.2 s$/m);
  expect(screen.getByTestId('gpu-check-details').textContent).toContain('subgroup sizes: 32-64');
  fireEvent.click(screen.getByTestId('gpu-check-copy'));
  expect(writeText).toHaveBeenCalledWith(JSON.stringify(report, null, 2));
  expect(JSON.parse(screen.getByTestId('gpu-check-json').textContent!)).toEqual(report);
});

it('says why when the worker cannot run the check, and lets it be tried again', async () => {
  vi.stubGlobal('Worker', FakeWorker);
  render(<GpuCheck />);
  fireEvent.click(screen.getByTestId('gpu-check-run'));
  FakeWorker.last!.send({ type: 'failed', message: 'this browser has no WebGPU (navigator.gpu is missing)' });
  expect((await screen.findByTestId('gpu-check-failed')).textContent).toBe(
    'GPU self-test could not run: this browser has no WebGPU (navigator.gpu is missing)',
  );
  expect(FakeWorker.last!.terminated).toBe(true);
  expect((screen.getByTestId('gpu-check-run') as HTMLButtonElement).disabled).toBe(false);
});

it('says why when no worker can be created', async () => {
  vi.stubGlobal('Worker', function NoWorker() {
    throw new Error('workers are disabled');
  });
  render(<GpuCheck />);
  fireEvent.click(screen.getByTestId('gpu-check-run'));
  expect((await screen.findByTestId('gpu-check-failed')).textContent).toBe(
    'GPU self-test could not run: workers are disabled',
  );
});
