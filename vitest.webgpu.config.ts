// Vitest for the WebGPU runs (docs/backends.md): only the WebGPU test files, on the implementation and driver the
// environment selects (Dawn on VK_ICD_FILENAMES's driver under Node, wgpu under Deno). A WebGPU test file is one
// that gets its device from tests/helpers/webgpu.ts, so a new one joins these runs without being listed.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

const HELPER = /from '(\.\.\/)+helpers\/webgpu\.ts'/;

export const webgpuTestFiles = readdirSync('tests', { recursive: true, encoding: 'utf8' })
  .filter((f) => /\.test\.tsx?$/.test(f) && HELPER.test(readFileSync(join('tests', f), 'utf8')))
  .map((f) => join('tests', f))
  .toSorted();

export default defineConfig({ ...base, test: { ...base.test, include: webgpuTestFiles } });
