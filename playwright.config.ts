// Playwright end-to-end tests: Debian's Chromium (no browser download) with WebGPU on SwiftShader, against the
// built app served by `vite preview`. One worker: the machine has 2 cores and the training tests use both.
// Screenshots of the main views at 1440x900 and 1280x720 are written under test-results/ as artifacts.
// The suite always builds and serves this checkout on its own port: `npm start` (4173) or another checkout's suite
// left running would otherwise be tested in its place.
import { defineConfig } from '@playwright/test';

const port = 4193;
export default defineConfig({
  testDir: 'tests/e2e',
  timeout: 180_000,
  expect: { timeout: 15_000 },
  workers: 1,
  reporter: [['list']],
  outputDir: 'test-results',
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1440, height: 900 },
    acceptDownloads: true,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--enable-unsafe-webgpu', '--disable-background-networking', '--disable-component-update'],
    },
  },
  webServer: {
    command: `npx vite build && npx vite preview --host 127.0.0.1 --port ${port} --strictPort`,
    url: `http://127.0.0.1:${port}`,
    reuseExistingServer: false,
    timeout: 180_000,
  },
});
