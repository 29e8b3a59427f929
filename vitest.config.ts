import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["*/test/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    pool: "forks",
    // One PostgreSQL for the run (DATABASE_URL, else an embedded one); each server test file gets its own database.
    globalSetup: ["server/test/support/global-setup.ts"],
  },
});
