import { mkdtempSync, readFileSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { spawnNode, stealPercent } from "../../bench/Processes.ts"

describe("bench processes", () => {
  it("steal is the hypervisor's share of the CPU time elapsed between two readings", () => {
    expect(stealPercent({ steal: 10, total: 1000 }, { steal: 60, total: 2000 })).toBe(5)
    expect(stealPercent({ steal: 10, total: 1000 }, { steal: 10, total: 1000 })).toBe(0)
  })

  // A child whose stdout nobody reads blocks once the pipe holds 64 KB; the gateway prints
  // little, but a diagnostic flag (--trace-deopt) prints megabytes.
  it("drains a child's stdout and stderr into its log, so a chatty child neither blocks nor loses output", async () => {
    const logFile = NodePath.join(mkdtempSync(NodePath.join(tmpdir(), "bench-proc-")), "child.log")
    const script = "process.stdout.write('o'.repeat(1 << 20)); process.stderr.write('e'.repeat(1000))"
    const child = spawnNode(["-e", script], { cpu: undefined, logFile })
    const code = await new Promise<number | null>((resolve) => child.once("close", resolve))
    expect(code).toBe(0)
    // The log is ended when the child closes and finishes writing a moment later.
    const expectedBytes = (1 << 20) + 1000
    for (let waited = 0; statSync(logFile).size < expectedBytes && waited < 5000; waited += 20) {
      await new Promise((r) => setTimeout(r, 20))
    }
    const log = readFileSync(logFile, "utf8")
    expect(log.split("o").length - 1).toBe(1 << 20)
    expect(log.split("e").length - 1).toBe(1000)
  }, 20_000)
})
