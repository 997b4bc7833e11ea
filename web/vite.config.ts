// Builds the operator console into web/dist, which the daemon serves at `/`.
// `npm run build:console` runs this from the repository root; `npx vite --config web/vite.config.ts`
// serves it for development, proxying /api to a running daemon (PRAXIS_API, default below).
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    sourcemap: true,
  },
  server: {
    proxy: {
      '/api': { target: process.env.PRAXIS_API ?? 'http://127.0.0.1:7300', changeOrigin: false },
    },
  },
});
