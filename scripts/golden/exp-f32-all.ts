// Checks expF32 (src/engine/kernels/cpu/exp-f32.ts) against Math.fround(Math.exp(x)) on every f32 x in [-104, 0]
// (1.1e9 values, about 20 s): the sampler's weights are then those of Math.exp on this JavaScript engine.
//   npx tsx scripts/golden/exp-f32-all.ts
import { expF32 } from '../../src/engine/kernels/cpu/exp-f32.ts';

const bits = new Uint32Array(1);
const asF32 = new Float32Array(bits.buffer);
let checked = 0;
let wrong = 0;
for (let b = 0x80000000; b <= 0xc2d00000; b++) {
  bits[0] = b;
  const x = asF32[0];
  checked++;
  if (!Object.is(expF32(x), Math.fround(Math.exp(x)))) {
    if (wrong++ < 10) console.log(`differs at x = ${x}: ${expF32(x)} vs ${Math.fround(Math.exp(x))}`);
  }
}
console.log(`${checked} f32 values in [-104, 0], ${wrong} differ`);
process.exit(wrong === 0 ? 0 : 1);
