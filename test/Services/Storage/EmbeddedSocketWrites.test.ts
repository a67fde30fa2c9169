import { mkdtempSync, rmSync } from "node:fs"
import * as Net from "node:net"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { embeddedSocketPath, startEmbeddedServer } from "../../../src/Services/Storage/EmbeddedPostgres.ts"
import { seedDataDir } from "../../support/PgliteTemplate.ts"

/** A frontend message of the Postgres wire protocol: a type byte, then its length and body. */
const message = (type: string, body: Buffer) => {
  const head = Buffer.alloc(5)
  head.write(type, 0, "latin1")
  head.writeInt32BE(body.length + 4, 1)
  return Buffer.concat([head, body])
}
const startup = () => {
  const body = Buffer.concat([Buffer.from([0, 3, 0, 0]), Buffer.from("user\0postgres\0database\0postgres\0\0", "latin1")])
  const length = Buffer.alloc(4)
  length.writeInt32BE(body.length + 4)
  return Buffer.concat([length, body])
}

/** Sends `bytes` and collects the answer chunk by chunk until its ReadyForQuery ('Z') message. */
const exchange = (socket: Net.Socket, bytes: Buffer) =>
  new Promise<Array<Buffer>>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    const onData = (chunk: Buffer) => {
      chunks.push(chunk)
      // ReadyForQuery is 'Z', length 5, a status byte: always the answer's last six bytes.
      const all = Buffer.concat(chunks)
      if (all.length >= 6 && all[all.length - 6] === 0x5a && all.readInt32BE(all.length - 5) === 5) {
        socket.off("data", onData)
        resolve(chunks)
      }
    }
    socket.on("data", onData)
    socket.once("error", reject)
    socket.write(bytes)
  })

/**
 * The embedded socket server answers each protocol message a client sends in a write of its own
 * (Parse, Bind, Execute and Sync: four writes a statement); the gateway corks each connection for
 * a tick so that a statement's answer leaves in one write, and is one read on the gateway's side.
 */
describe("the embedded database's socket", () => {
  let dataDir: string
  let stop: () => Promise<void>

  beforeAll(async () => {
    dataDir = mkdtempSync(NodePath.join(tmpdir(), "gw-socket-"))
    await seedDataDir(dataDir)
    stop = (await startEmbeddedServer(dataDir, embeddedSocketPath(dataDir))).stop
  })
  afterAll(async () => {
    await stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it("answers a statement's four messages, fifty rows and all, in one write", async () => {
    const socket = Net.connect(embeddedSocketPath(dataDir))
    await new Promise((resolve) => socket.once("connect", resolve))
    await exchange(socket, startup())
    // Every write the server's side of the connection hands to the operating system, counted
    // where Node's stream does it (`_write` for one buffer, `_writev` for what a cork gathered).
    const proto = Net.Socket.prototype as unknown as Record<"_write" | "_writev", (this: Net.Socket, ...args: Array<unknown>) => void>
    const original = { _write: proto._write, _writev: proto._writev }
    let serverWrites = 0
    for (const name of ["_write", "_writev"] as const) {
      proto[name] = function (this: Net.Socket, ...args: Array<unknown>) {
        if (this !== socket) serverWrites++
        return original[name].apply(this, args)
      }
    }
    // One statement as the gateway's driver sends it: Parse, Bind, Execute and Sync in one packet.
    const int = (bytes: 2 | 4, n: number) => {
      const b = Buffer.alloc(bytes)
      if (bytes === 2) b.writeInt16BE(n)
      else b.writeInt32BE(n)
      return b
    }
    const statement = Buffer.concat([
      message("P", Buffer.concat([Buffer.from("\0SELECT g FROM generate_series(1, 50) AS g\0", "latin1"), int(2, 0)])),
      message("B", Buffer.concat([Buffer.from("\0\0", "latin1"), int(2, 0), int(2, 0), int(2, 0)])),
      message("E", Buffer.concat([Buffer.from("\0", "latin1"), int(4, 0)])),
      message("S", Buffer.alloc(0))
    ])
    const chunks = await exchange(socket, statement).finally(() => Object.assign(proto, original))
    const answer = Buffer.concat(chunks)
    const types: Array<string> = []
    for (let at = 0; at < answer.length; at += 1 + answer.readInt32BE(at + 1)) types.push(String.fromCharCode(answer[at]!))
    // ParseComplete, BindComplete, the rows (DataRow 'D'), CommandComplete ('C'), the settings the
    // server reports after a query ('S') and ReadyForQuery ('Z'): one write, where each of the four
    // messages sent used to get a write of its own.
    expect(types.filter((t) => t === "D")).toHaveLength(50)
    expect(types).toContain("C")
    expect(types.at(-1)).toBe("Z")
    expect(serverWrites).toBe(1)
    expect(chunks.length).toBe(1)
    socket.destroy()
  })
})
