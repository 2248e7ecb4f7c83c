// The playground page as `npm start` serves it, for the browser benchmarks (startup.ts, page-train.ts): built by
// `vite build` into a fresh temporary folder (or a folder already built, to compare two builds under one machine
// load) and served by `vite preview` on a free port, with the cross-origin isolation headers vite.config.ts sets.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build, preview } from 'vite';

const root = resolve(import.meta.dirname, '../..');
const configFile = resolve(root, 'vite.config.ts');

/** Serves the built page; `dist` is a folder already built, else the page is built into `tmp-<prefix>...`. */
export async function serveBuiltPage(
  dist: string | null,
  prefix: string,
): Promise<{ url: string; close: () => Promise<void> }> {
  const outDir = dist ?? mkdtempSync(join(tmpdir(), prefix));
  if (!dist) {
    console.log(`building the page into ${outDir} ...`);
    await build({ root, configFile, build: { outDir, emptyOutDir: true }, logLevel: 'error' });
  }
  const server = await preview({
    root,
    configFile,
    build: { outDir },
    preview: { host: '127.0.0.1', port: 0, strictPort: false },
    logLevel: 'error',
  });
  const address = server.httpServer.address();
  if (!address || typeof address === 'string') throw new Error('the preview server has no port');
  return { url: `http://127.0.0.1:${address.port}/`, close: () => server.close() };
}
