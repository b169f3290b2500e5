/// <reference types="vitest/config" />
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The bundle is committed under src/assay/web/dist and rebuilt in CI, which fails on any difference:
// the build must be deterministic (content-hashed names, no source maps, nothing time-dependent).
const outDir = fileURLToPath(new URL("../src/assay/web/dist", import.meta.url));

export default defineConfig({
  plugins: [react()],
  base: "/",
  build: {
    outDir,
    emptyOutDir: true,
    sourcemap: false,
    // Everything as files under /assets: the server's Content-Security-Policy allows no data: URLs.
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 1024,
  },
  server: {
    proxy: { "/api": "http://127.0.0.1:8000" },
  },
  test: {
    environment: "jsdom",
    include: ["src/**/*.test.tsx", "src/**/*.test.ts"],
    setupFiles: ["src/test/setup.ts"],
    // A worker per core (Vitest's default leaves one core out): each file's jsdom set-up is most of the run,
    // and on two cores the run took 24-25 s where it takes 17.
    maxWorkers: "100%",
  },
});
