import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/GlobalSetup.ts"],
    // Fails any file whose output or response bodies hold a configured provider key.
    setupFiles: ["test/support/SecretScan.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration suites start servers and databases; keep files in separate processes.
    pool: "forks",
    sequence: { concurrent: false }
  }
})
