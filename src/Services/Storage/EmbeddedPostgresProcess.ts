import { startEmbeddedServer } from "./EmbeddedPostgres.ts"

/**
 * Entry point of the embedded storage process, forked by the gateway (or the admin CLI) with
 * `[dataDir, socketPath]` and an IPC channel. It answers `{ ready: true }` or `{ error }`, and
 * stops when told to or when its parent goes away.
 *
 * SIGINT and SIGTERM are ignored on purpose: a Ctrl-C in a terminal or a service manager
 * signals the whole process group, and the storage must outlive the gateway's drain, which
 * still writes the last usage events. Losing the parent (even to SIGKILL) closes the IPC
 * channel, and that stops the storage cleanly.
 */
const [dataDir, socketPath] = process.argv.slice(2)
const send = (message: object) => new Promise<void>((resolve) => (process.send ? process.send(message, () => resolve()) : resolve()))

if (dataDir === undefined || socketPath === undefined || process.send === undefined) {
  process.stderr.write("usage: forked with [dataDir, socketPath] and an IPC channel\n")
  process.exit(2)
}

process.on("SIGINT", () => {})
process.on("SIGTERM", () => {})

try {
  const server = await startEmbeddedServer(dataDir, socketPath)
  let stopping = false
  const stop = async () => {
    if (stopping) return
    stopping = true
    await server.stop()
    process.exit(0)
  }
  process.on("disconnect", () => void stop())
  process.on("message", (message) => {
    if (typeof message === "object" && message !== null && "stop" in message) void stop()
  })
  await send({ ready: true })
} catch (error) {
  await send({ error: error instanceof Error ? error.message : String(error) })
  process.exit(1)
}
