// Vite build of the benchmark / cross-check page alone (not the playground): bench/browser/index.html ->
// bench/browser/dist/ (git-ignored), served by bench/browser/serve.ts. onnxruntime-web's .wasm files are emitted
// next to the bundle, so the page never reaches for a CDN.
// transformers.js brings its own onnxruntime-web (1.31-dev, nested under it) and points it at a CDN when imported;
// the alias `ort-for-transformers` names that copy's dist/ folder, so the page can import its asyncify .mjs/.wasm
// with `?url` (Vite emits them) and set env.backends.onnx.wasm.wasmPaths to them.
//   npx vite build --config bench/browser/vite.config.ts
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { defineConfig } from 'vite';

const require = createRequire(import.meta.url);
const transformersDir = dirname(require.resolve('@huggingface/transformers'));
const ortForTransformers = dirname(
  require.resolve('onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm', { paths: [transformersDir] }),
);

export default defineConfig({
  root: import.meta.dirname,
  base: './',
  logLevel: 'warn',
  resolve: { alias: { 'ort-for-transformers': ortForTransformers } },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 8192 },
});
