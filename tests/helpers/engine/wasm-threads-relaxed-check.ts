// Child process of tests/engine/backends/wasm/threads.test.ts: Node 20 validates relaxed-SIMD modules only with
// --experimental-wasm-relaxed-simd, which a vitest worker does not have. Runs the whole-model check of the first
// golden fixture on the relaxed build with 1 thread, with 2 threads sharing chunks, and with the helper running
// every chunk, and prints one JSON line: which outputs differ bit for bit (none expected) and how many calls split.
import { WasmBackend } from '../../../src/engine/backends/wasm.ts';
import { spawnNodeWasmHelper } from '../../../src/cli/wasm-helper-node.ts';
import { firstDifference, goldenFixtures, modelRun } from './wasm-threads-model.ts';

const name = goldenFixtures()[0];
const make = (threads: 1 | 2, helperOnly = false) =>
  WasmBackend.create({
    variant: 'relaxed-simd',
    threads,
    spawnHelper: spawnNodeWasmHelper,
    cores: 2,
    splitMinWork: 0,
    helperOnly,
  });
const one = await make(1);
const want = await modelRun(one, name);
const differing: string[] = [];
const split: number[] = [];
let variant = one.variant as string;
for (const two of [await make(2), await make(2, true)]) {
  if (two.threads !== 2) differing.push('no second thread');
  if (two.variant !== one.variant) variant = 'mixed';
  const got = await modelRun(two, name);
  for (const [key, w] of want)
    if (!got.has(key) || firstDifference(got.get(key)!, w) !== -1)
      differing.push(`${key}${two.runtime.helperJobs.alone ? '' : ' (helper only)'}`);
  split.push(two.runtime.stats.splitMatmuls);
  two.destroy();
}
one.destroy();
console.log(JSON.stringify({ variant, fixture: name, compared: want.size, differing, split }));
