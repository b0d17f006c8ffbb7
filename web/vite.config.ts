/// <reference types="vitest/config" />
// Build config: fixed file names, no sourcemaps, output committed under the server crate so
// `cargo build` needs no Node (the backend embeds it with rust-embed). CI rebuilds and diffs it,
// so the output must be byte-reproducible: no hashes, no timestamps, no absolute paths.
//
// Two entries, two builds (`npm run build` runs both): the web UI (`index.html` → `app.js`,
// `index.css`) and, with `--mode gateway`, the gateway mode's page (`gateway.html` →
// `gateway.js`, `gateway.css`; docs/gateway.md). One multi-entry build would move the code both
// share (React, Mantine) into a third chunk and change `app.js`; two builds keep each entry one
// self-contained file. The second build adds to the folder the first emptied.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// Relative to this file's folder (vite's root): keeps absolute paths out of the build.
const outDir = '../crates/mcpscope-server/assets/dist';

export default defineConfig(({ mode }) => {
  const gateway = mode === 'gateway';
  return {
    plugins: [react()],
    base: '/',
    build: {
      outDir,
      emptyOutDir: !gateway,
      sourcemap: false,
      assetsInlineLimit: 0,
      chunkSizeWarningLimit: 2048,
      rollupOptions: {
        input: gateway ? 'gateway.html' : 'index.html',
        output: {
          entryFileNames: gateway ? 'gateway.js' : 'app.js',
          chunkFileNames: '[name].js',
          assetFileNames: '[name][extname]',
        },
      },
    },
    server: {
      // `npm run dev` proxies the API to a running `mcpscope --no-open` (cookie auth: open
      // http://127.0.0.1:6274/?token=… once in the same browser, or set DANGEROUSLY_OMIT_AUTH).
      proxy: { '/api': { target: 'http://127.0.0.1:6274', changeOrigin: false } },
    },
    test: {
      environment: 'node',
      include: ['src/**/*.test.{ts,tsx}'],
    },
  };
});
