// Vite build of the benchmark / cross-check page alone (not the playground): bench/browser/index.html ->
// bench/browser/dist/ (git-ignored), served by bench/browser/serve.ts. onnxruntime-web's .wasm files are emitted
// next to the bundle, so the page never reaches for a CDN.
//   npx vite build --config bench/browser/vite.config.ts
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: './',
  logLevel: 'warn',
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 8192 },
});
