import { type ChildProcess, spawn } from "node:child_process"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { Redacted } from "effect"
import type { TestStorage } from "./TestDatabase.ts"

const root = NodePath.resolve(NodePath.dirname(fileURLToPath(import.meta.url)), "..", "..")

export interface GatewayProcess {
  readonly child: ChildProcess
  readonly url: string
  /** Everything written to stdout and stderr so far. */
  readonly output: () => string
  /** Sends `signal` (SIGTERM by default) and resolves with the exit code. */
  readonly stop: (signal?: NodeJS.Signals) => Promise<number | null>
}

/** The gateway as `npm start` runs it (`src/main.ts` on the pinned Node), on a free port of loopback. */
export const startGatewayProcess = async (options: {
  readonly storage: TestStorage
  readonly configFile: string
  readonly env?: NodeJS.ProcessEnv
  /** Node options before the entry point (`--import` a preload). */
  readonly nodeArgs?: ReadonlyArray<string>
  /** Opens an IPC channel to the process (`child.send`, `process.on("message")` inside). */
  readonly ipc?: boolean
}): Promise<GatewayProcess> => {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: options.storage.dataDir,
    GATEWAY_CONFIG: options.configFile,
    LOG_LEVEL: "info",
    ...options.env
  }
  if (options.storage.databaseUrl === undefined) delete env["DATABASE_URL"]
  else env["DATABASE_URL"] = Redacted.value(options.storage.databaseUrl)
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), NodePath.join(root, "src", "main.ts")], {
    cwd: root,
    env,
    stdio: options.ipc === true ? ["ignore", "pipe", "pipe", "ipc"] : ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.on("data", (d: Buffer) => (output += d.toString()))
  child.stderr!.on("data", (d: Buffer) => (output += d.toString()))
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  let port = 0
  const deadline = Date.now() + 60_000
  while (port === 0 && Date.now() < deadline && child.exitCode === null) {
    const match = /Listening on http:\/\/[^:]+:(\d+)/.exec(output)
    if (match !== null) port = Number(match[1])
    else await new Promise((r) => setTimeout(r, 50))
  }
  if (port === 0) {
    child.kill("SIGKILL")
    throw new Error(`gateway did not start:\n${output}`)
  }
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    stop: async (signal = "SIGTERM") => {
      if (child.exitCode === null) child.kill(signal)
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000)
      const code = await exited
      clearTimeout(timer)
      return code
    }
  }
}
