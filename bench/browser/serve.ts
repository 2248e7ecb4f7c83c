// Node only: a static server on 127.0.0.1 (a secure context, so navigator.gpu exists) for the benchmark page.
//   /              bench/browser/dist/ (the page built by bench/browser/vite.config.ts)
//   /models/NAME/  bench/results/tmp/models/NAME/ (random benchmark models, bench/peer.ts makes them)
//   /golden/NAME/  tests/fixtures/golden/NAME/ (the golden models with their ONNX exports)
//   /public-models/NAME/  public/models/NAME/ (the shipped models, e.g. tiny-rema with its onnx/model.onnx)
// Used by bench/browser/driver.ts and tests/e2e/onnx-crosscheck.spec.ts. Files are streamed (models reach 1 GB).
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { build } from 'vite';

const root = resolve(import.meta.dirname, '../..');
const mounts: Array<[string, string]> = [
  ['/models/', join(root, 'bench/results/tmp/models')],
  ['/golden/', join(root, 'tests/fixtures/golden')],
  ['/public-models/', join(root, 'public/models')],
  ['/', join(root, 'bench/browser/dist')],
];
const types: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
};

/** Builds the page into bench/browser/dist. */
export async function buildPage(): Promise<void> {
  await build({ configFile: join(root, 'bench/browser/vite.config.ts') });
}

/** Serves on a free port (or `port`); returns the base URL and the server (close it when done). `routes` answer
 *  GET PATH with text (e.g. /__cpu-seconds, the benchmark's clock, bench/browser/cpu-clock.ts). */
export async function servePage(
  port = 0,
  routes: Record<string, () => Promise<string>> = {},
): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const route = routes[path];
    if (route) {
      route().then(
        (text) => res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-store' }).end(text),
        (e: Error) => res.writeHead(500).end(e.message),
      );
      return;
    }
    const [prefix, dir] = mounts.find(([p]) => path.startsWith(p))!;
    const file = normalize(join(dir, path.slice(prefix.length) || 'index.html'));
    if (!file.startsWith(dir + sep) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end(`not found: ${path}`);
      return;
    }
    res.writeHead(200, {
      'content-type': types[extname(file)] ?? 'application/octet-stream',
      'content-length': statSync(file).size,
    });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}
