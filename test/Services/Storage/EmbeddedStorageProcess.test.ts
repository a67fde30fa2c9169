import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { canConnect, embeddedSocketPath, startEmbeddedServer } from "../../../src/Services/Storage/EmbeddedPostgres.ts"
import { seedDataDir } from "../../support/PgliteTemplate.ts"

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
const waitFor = async (condition: () => boolean, ms: number) => {
  for (const end = Date.now() + ms; Date.now() < end && !condition(); ) await new Promise((r) => setTimeout(r, 50))
  return condition()
}

/**
 * Embedded storage runs as a child process of the gateway. It must outlive a signal sent to
 * the whole process group (the gateway still writes while it drains) and must not outlive
 * the gateway itself, however the gateway dies.
 */
describe("the embedded storage process", () => {
  let dataDir: string
  let gateway: ChildProcess
  let output = ""

  beforeAll(async () => {
    dataDir = mkdtempSync(NodePath.join(tmpdir(), "gw-storage-"))
    await seedDataDir(dataDir)
    const configFile = NodePath.join(dataDir, "gateway.yaml")
    writeFileSync(configFile, "providers: []\nmodels: []\n")
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, GATEWAY_CONFIG: configFile, LOG_LEVEL: "info" }
    delete env["DATABASE_URL"]
    gateway = spawn(process.execPath, ["src/main.ts"], { env, stdio: ["ignore", "pipe", "pipe"] })
    gateway.stdout!.on("data", (d: Buffer) => (output += d.toString()))
    gateway.stderr!.on("data", (d: Buffer) => (output += d.toString()))
    if (!(await waitFor(() => output.includes("Listening"), 60_000))) throw new Error(`gateway did not start:\n${output}`)
  }, 90_000)
  afterAll(() => {
    if (gateway.exitCode === null) gateway.kill("SIGKILL")
    rmSync(dataDir, { recursive: true, force: true })
  })

  it("ignores a group signal, and stops when the gateway is killed outright", async () => {
    const storagePid = Number(readFileSync(NodePath.join(dataDir, "pg.lock"), "utf8"))
    expect(storagePid).not.toBe(gateway.pid)
    expect(isAlive(storagePid)).toBe(true)

    // What a terminal's Ctrl-C or a service manager does to every process of the group.
    process.kill(storagePid, "SIGINT")
    process.kill(storagePid, "SIGTERM")
    await new Promise((r) => setTimeout(r, 300))
    expect(isAlive(storagePid)).toBe(true)
    expect(await canConnect(embeddedSocketPath(dataDir))).toBe(true)

    gateway.kill("SIGKILL")
    expect(await waitFor(() => !isAlive(storagePid), 15_000)).toBe(true)
    expect(existsSync(NodePath.join(dataDir, "pg.lock"))).toBe(false)

    // The data directory is free again: it opens, and the gateway's migrations are in it.
    const server = await startEmbeddedServer(dataDir, embeddedSocketPath(dataDir))
    await server.stop()
  }, 60_000)

  it("refuses a second opener of the same data directory with a one-line reason", async () => {
    const other = mkdtempSync(NodePath.join(tmpdir(), "gw-storage-"))
    try {
      await seedDataDir(other)
      const first = await startEmbeddedServer(other, embeddedSocketPath(other))
      await expect(startEmbeddedServer(other, embeddedSocketPath(other))).rejects.toThrow(/embedded storage serves one gateway/)
      await first.stop()
    } finally {
      rmSync(other, { recursive: true, force: true })
    }
  }, 60_000)
})
