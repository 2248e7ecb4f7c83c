// Vite: serves and builds the playground page. COOP/COEP make the page cross-origin isolated so the
// CPU backend may share memory between workers.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  plugins: [react()],
  server: { headers: isolation },
  preview: { headers: isolation },
  worker: { format: 'es' },
  build: { target: 'es2022', chunkSizeWarningLimit: 4096 },
});
