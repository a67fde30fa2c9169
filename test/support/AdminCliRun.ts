import { spawn } from "node:child_process"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"

const root = NodePath.resolve(NodePath.dirname(fileURLToPath(import.meta.url)), "..", "..")

export interface CliRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** The admin CLI as `npm run admin` runs it, on the project's pinned Node, with `env` added. */
export const runAdminCli = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv): Promise<CliRun> =>
  new Promise((resolve, reject) => {
    const binDir = NodePath.join(root, "node_modules", ".bin")
    const child = spawn(NodePath.join(binDir, "node"), [NodePath.join(root, "src", "AdminCli.ts"), ...args], {
      cwd: root,
      env: { ...process.env, PATH: `${binDir}:${process.env["PATH"] ?? ""}`, ...env }
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })
