import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/GlobalSetup.ts"],
    // Fails any file whose output or response bodies hold a configured provider key.
    setupFiles: ["test/support/SecretScan.ts"],
    testTimeout: 30_000,
    // `expect.poll` waits for a state the gateway reaches by itself (a closed stream counted down, a
    // span exported); its default of 1 s failed on a loaded 2-core machine. It still fails if the
    // state never comes.
    expect: { poll: { timeout: 20_000 } },
    hookTimeout: 60_000,
    // Integration suites start servers and databases; keep files in separate processes.
    pool: "forks",
    // At least two files at a time, even on a 2-core machine (vitest's default there is one): most
    // files wait on child processes and sockets, so the second worker fills idle CPU (13 -> 9.5 min
    // on 2 cores). The suite's own rule (no timing assumptions, green on a loaded machine) is what
    // makes this safe.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    sequence: { concurrent: false }
  }
})
