#!/usr/bin/env node
// `npx rema ...`: runs the TypeScript command line (src/cli/main.ts) through tsx's loader, no build step.
// Node 20's V8 (11.3) accepts relaxed-SIMD WebAssembly only behind --experimental-wasm-relaxed-simd; the flag is
// set here, before any module is compiled, so the CLI runs the same fastest kernels (fused multiply-add) as the
// page in Chromium. `--simd plain` still pins the plain-SIMD build (src/cli/setup.ts).
import v8 from 'node:v8';
import { register } from 'tsx/esm/api';

const [v8Major, v8Minor] = process.versions.v8.split('.').map(Number);
if (v8Major < 11 || (v8Major === 11 && v8Minor < 4)) v8.setFlagsFromString('--experimental-wasm-relaxed-simd');
register();
const { main } = await import(new URL('../src/cli/main.ts', import.meta.url).href);
await main(process.argv);
