import { defineConfig } from "vitest/config"

/**
 * `npm run test:fuzz`: only the fuzz suite, with 10,000 generated requests per endpoint
 * (`FUZZ_RUNS`; `npm test` runs the same file with 200). It prints the requests sent and the
 * 5xx count per endpoint.
 */
export default defineConfig({
  test: {
    include: ["test/Http/Fuzz.test.ts"],
    globalSetup: ["test/support/GlobalSetup.ts"],
    env: { FUZZ_RUNS: process.env["FUZZ_RUNS"] ?? "10000" },
    testTimeout: 1_800_000,
    hookTimeout: 120_000,
    pool: "forks"
  }
})
