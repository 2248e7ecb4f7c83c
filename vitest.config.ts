// Vitest: unit and integration tests in Node. WebGPU tests run on Dawn (npm `webgpu`); on a machine without a
// GPU the Vulkan loader must find SwiftShader, and that variable has to be set in the main process.
import { defineConfig } from 'vitest/config';

process.env.VK_ICD_FILENAMES ??= '/usr/lib/chromium/vk_swiftshader_icd.json';
process.env.XDG_RUNTIME_DIR ??= '/tmp';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'tests/**/*.test.tsx'],
    exclude: ['tests/e2e/**', 'node_modules/**'],
    environment: 'node',
    pool: 'forks',
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
