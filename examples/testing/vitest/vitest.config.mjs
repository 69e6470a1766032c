import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // One broker for the whole run, started before any test file (see global-setup.mjs).
    globalSetup: ["./global-setup.mjs"],
  },
});
