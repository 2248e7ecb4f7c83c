// Vitest: unit and integration tests in Node. WebGPU tests run on Dawn (npm `webgpu`); on a machine without a
// GPU the Vulkan loader must find SwiftShader, and that variable has to be set in the main process.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

process.env.VK_ICD_FILENAMES ??= '/usr/lib/chromium/vk_swiftshader_icd.json';
process.env.XDG_RUNTIME_DIR ??= '/tmp';
// Debian's chromium ships its own Vulkan loader (libvulkan.so.1) beside SwiftShader. Without the system package
// libvulkan1, Dawn finds that loader only through LD_LIBRARY_PATH, which each forked test worker reads at start.
if (!existsSync('/usr/lib/x86_64-linux-gnu/libvulkan.so.1') && existsSync('/usr/lib/chromium/libvulkan.so.1')) {
  process.env.LD_LIBRARY_PATH = [process.env.LD_LIBRARY_PATH, '/usr/lib/chromium'].filter(Boolean).join(':');
}

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'tests/**/*.test.tsx'],
    exclude: ['tests/e2e/**', 'node_modules/**'],
    environment: 'node',
    pool: 'forks',
    // One test file per core. Vitest's own default keeps a core for its main process (1 worker on a 2-core CI
    // machine), which idles once the sources are transformed while the single worker runs the files one by one.
    maxWorkers: availableParallelism(),
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
