// Vite: serves and builds the playground page. COOP/COEP make the page cross-origin isolated so the
// CPU backend may share memory between workers.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

// the bundler's plugin-timing report is for vite's own developers, not for a user starting the page
const quiet = { checks: { bundlerTimings: false } };

export default defineConfig({
  // relative URLs: the built folder works from any static host and any sub-path (public/site-sw.js supplies the
  // headers there)
  base: './',
  plugins: [react()],
  server: { headers: isolation },
  preview: { headers: isolation },
  worker: { format: 'es', rolldownOptions: quiet },
  // Pre-bundling scans the page and its workers only: bench/browser pages import a runtime that only the benchmark
  // driver provides, and scanning them made `npm start` open with "Failed to run dependency scan".
  optimizeDeps: { entries: ['index.html', 'src/app/**/*.{ts,tsx}'] },
  build: {
    target: 'es2022',
    chunkSizeWarningLimit: 4096,
    rolldownOptions: quiet,
  },
});
