// rmsnorm forward and backward with workgroup reductions (kernels/wgsl/norm.ts rmsnormRows, norm-rows.ts: one
// workgroup per row for y and dx, 4 row lanes per feature for dw) against their CPU twin, the catalog's rmsnorm and
// rmsnormBackward on the CPU backend: row widths below, at and across the 64 lanes (2, 5, 63, 65, 130, 1000),
// feature counts that leave a partial dw workgroup, many rows (2,000) and more rows than one dispatch dimension
// holds (70,000: the grid folds into y), dx overwritten and accumulated, dw accumulated onto a non-zero gradient,
// f16 weights. tests/engine/golden.test.ts runs every fixture with them too. Forced on (option rowNorm): off on
// SwiftShader by default. Tolerance 1e-5 of max |value| as for the thread-per-row kernels (dw over 70,000 rows: 3e-5).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CpuBackend } from '../../src/engine/backends/cpu.ts';
import { WebGpuBackend } from '../../src/engine/backends/webgpu.ts';
import { encodeF16 } from '../../src/engine/io/half-float.ts';
import { Rng } from '../../src/util/rng.ts';
import { compareKernel, type TensorInput } from '../helpers/kernel-compare.ts';
import { getTestDevice } from '../helpers/webgpu.ts';

const TOL = 1e-5;
/** dw summed over 70,000 rows in another order than the CPU's (measured 5.4e-6 on SwiftShader) */
const TOL_LONG = 3e-5;
const rng = new Rng(23);
const numel = (shape: number[]) => shape.reduce((a, b) => a * b, 1);
const randn = (n: number) => Float32Array.from({ length: n }, () => rng.normal());
const f32 = (shape: number[]): TensorInput => ({ shape, data: randn(numel(shape)) });
const nan = (shape: number[]): TensorInput => ({ shape, data: new Float32Array(numel(shape)).fill(NaN) });

let gpu: WebGpuBackend;
const cpu = new CpuBackend();
const rowDispatches = () =>
  Object.entries(gpu.dispatchesByProgram())
    .filter(([k]) => /^rmsnorm(Rows|DxRows|DwCols)/.test(k))
    .reduce((s, [, n]) => s + n, 0);
const plainDispatches = () =>
  Object.entries(gpu.dispatchesByProgram())
    .filter(([k]) => /^rmsnorm(:|Dx:|Dw:)/.test(k))
    .reduce((s, [, n]) => s + n, 0);

describe('rmsnorm with workgroup reductions vs the CPU twin', () => {
  beforeAll(async () => {
    const dev = await getTestDevice();
    gpu = WebGpuBackend.create(dev.device, { gpuInfo: dev.description, rowNorm: true });
  });
  afterAll(() => gpu?.destroy());

  it('forward and backward on odd shapes, f32 and f16 weights, accumulate', { timeout: 120_000 }, async () => {
    expect(gpu.tuning.rowReduce).toBe(true);
    const rows0 = rowDispatches(),
      plain0 = plainDispatches();
    let runs = 0;
    // [R, D, weight dtype, accumulate]
    const cases: Array<[number, number, 'f32' | 'f16', 0 | 1]> = [
      [1, 2, 'f32', 0],
      [3, 5, 'f32', 1],
      [7, 63, 'f16', 0],
      [5, 65, 'f32', 1],
      [2000, 130, 'f32', 0],
      [4, 1000, 'f16', 1],
      [70_000, 3, 'f32', 0],
    ];
    for (const [R, D, wd, accumulate] of cases) {
      const x = f32([R, D]);
      const w: TensorInput = wd === 'f16' ? { shape: [D], data: encodeF16(randn(D)), dtype: 'f16' } : f32([D]);
      const what = `R=${R} D=${D} w ${wd} accumulate ${accumulate}`;
      const fwd = await compareKernel(
        cpu,
        gpu,
        'rmsnorm',
        { x, w, y: nan([R, D]), rstd: nan([R]) },
        { R, D, eps: 1e-6 },
        ['y', 'rstd'],
      );
      expect(fwd.err.y, `y ${what}`).toBeLessThan(TOL);
      expect(fwd.err.rstd, `rstd ${what}`).toBeLessThan(TOL);
      const bwd = await compareKernel(
        cpu,
        gpu,
        'rmsnormBackward',
        {
          x,
          w,
          rstd: { shape: [R], data: fwd.ref.rstd },
          dy: f32([R, D]),
          dx: accumulate ? f32([R, D]) : nan([R, D]),
          dw: f32([D]),
        },
        { R, D, accumulate },
        ['dx', 'dw'],
      );
      expect(bwd.err.dx, `dx ${what}`).toBeLessThan(TOL);
      expect(bwd.err.dw, `dw ${what}`).toBeLessThan(R > 10_000 ? TOL_LONG : TOL);
      runs += 3;
    }
    expect(rowDispatches() - rows0).toBe(runs);
    expect(plainDispatches()).toBe(plain0);
  });
});
