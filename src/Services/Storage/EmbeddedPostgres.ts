import { createHash } from "node:crypto"
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs"
import * as Net from "node:net"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"

/**
 * Embedded Postgres (PGlite) on a data directory, served on a unix socket. This module runs as
 * its own process (see EmbeddedPostgresProcess.ts): PGlite executes queries synchronously in
 * WebAssembly and keeps its buffer pool in the memory of the process that opens it, so in a
 * separate process neither its memory nor its query time lands on the gateway's event loop.
 * Plain Node, no Effect: the storage process loads nothing but PGlite.
 */

/**
 * The socket lives inside DATA_DIR (mode 0600), so only this user can reach it and the admin
 * CLI finds a running gateway's database by path alone. Unix socket paths are limited to ~107
 * bytes; a deep DATA_DIR gets a socket in the temp directory, named after the data directory so
 * every process derives the same path.
 */
export const embeddedSocketPath = (dataDir: string): string => {
  const inside = NodePath.join(NodePath.resolve(dataDir), "pg.sock")
  if (Buffer.byteLength(inside) <= 100) return inside
  const digest = createHash("sha256").update(NodePath.resolve(dataDir)).digest("hex").slice(0, 16)
  return NodePath.join(tmpdir(), `gateway-${digest}.sock`)
}

export const canConnect = (path: string): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = Net.connect({ path })
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })

const lockPath = (dataDir: string) => NodePath.join(NodePath.resolve(dataDir), "pg.lock")

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** The process holding the data directory, if one is alive (a stale lock is removed). */
export const lockHolder = (dataDir: string): number | undefined => {
  try {
    const pid = Number(readFileSync(lockPath(dataDir), "utf8"))
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) return pid
    unlinkSync(lockPath(dataDir))
  } catch {
    // no lock file
  }
  return undefined
}

const oneProcessOnly = (dataDir: string, detail: string) =>
  `${detail} is using ${NodePath.resolve(dataDir)}; embedded storage serves one gateway, set DATABASE_URL to run several`

export interface EmbeddedServer {
  readonly stop: () => Promise<void>
}

/**
 * The socket server answers each protocol message a client sends in a write of its own: a
 * statement from the gateway's driver is four (Parse, Bind, Execute, Sync), so four syscalls here
 * and up to four reads and parses in the gateway. Corking a connection at its first write in a
 * tick and uncorking it once the tick's work is done sends a statement's answer in one `writev`.
 * The server keeps its net.Server in a private field; without one (another version), nothing
 * is corked and every answer still arrives, only in more writes.
 */
const corkEachTick = (server: object): void => {
  const listening = (server as { readonly server?: Net.Server | null }).server
  listening?.on("connection", (socket: Net.Socket) => {
    const write = socket.write.bind(socket) as (...args: Array<unknown>) => boolean
    let corked = false
    const uncork = () => {
      corked = false
      socket.uncork()
    }
    socket.write = ((...args: Array<unknown>) => {
      if (!corked) {
        corked = true
        socket.cork()
        process.nextTick(uncork)
      }
      return write(...args)
    }) as Net.Socket["write"]
  })
}

/**
 * Opens PGlite on `dataDir/pg` and serves it on `socketPath`. Only one process may open an
 * on-disk PGlite: the data directory is locked by pid from before PGlite opens until after it
 * closed, so a CLI started while the gateway boots waits for the socket instead of opening the
 * same files. Rejects with a one-line message.
 */
export const startEmbeddedServer = async (dataDir: string, socketPath: string): Promise<EmbeddedServer> => {
  const pgDir = NodePath.join(NodePath.resolve(dataDir), "pg")
  try {
    mkdirSync(pgDir, { recursive: true, mode: 0o700 })
  } catch (cause) {
    throw new Error(`cannot create ${pgDir}: ${String(cause)}`)
  }
  const holder = lockHolder(dataDir)
  if (holder !== undefined) throw new Error(oneProcessOnly(dataDir, `another process (pid ${holder})`))
  try {
    writeFileSync(lockPath(dataDir), String(process.pid), { flag: "wx", mode: 0o600 })
  } catch {
    throw new Error(`${NodePath.resolve(dataDir)} is being opened by another process`)
  }
  const unlock = () => rmSync(lockPath(dataDir), { force: true })
  try {
    if (existsSync(socketPath)) {
      if (await canConnect(socketPath)) throw new Error(oneProcessOnly(dataDir, `another gateway (socket ${socketPath})`))
      unlinkSync(socketPath)
    }
    const { PGlite } = await import("@electric-sql/pglite")
    const { PGLiteSocketServer } = await import("@electric-sql/pglite-socket")
    // The store is small (keys, accounts, an append-only usage log): a 16 MB buffer pool
    // serves it, where the default 128 MB would be most of the process.
    const startParams = [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"]
    const db = await PGlite.create({ dataDir: pgDir, startParams }).catch((cause: unknown) => {
      throw new Error(`cannot open embedded database in ${pgDir}: ${String(cause)}`)
    })
    const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: 16 })
    try {
      await server.start()
      corkEachTick(server)
      chmodSync(socketPath, 0o600)
    } catch (cause) {
      await db.close().catch(() => undefined)
      throw new Error(`cannot listen on ${socketPath}: ${String(cause)}`)
    }
    return {
      stop: async () => {
        await server.stop().catch(() => undefined)
        await db.close().catch(() => undefined)
        unlock()
      }
    }
  } catch (error) {
    unlock()
    throw error
  }
}
