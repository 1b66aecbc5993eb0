import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // The skip block (test/support/skip-report.ts) ends every run: what was skipped for a
    // missing dependency, why, and the command that installs it.
    reporters: ["default", "./test/support/skip-report.ts"],
  },
});
