import * as Net from "node:net"
import type { AddressInfo } from "node:net"

/**
 * A TCP proxy on loopback in front of a database (TCP or unix socket) that a test can cut: every
 * open connection is reset and new ones are closed at once, as when the database host goes
 * away, until `restore`. Lets a test take the database from one client while the test keeps
 * its own connection for assertions.
 */
export class CuttableProxy {
  private server: Net.Server | undefined
  private readonly sockets = new Set<Net.Socket>()
  private cutOff = false
  port = 0
  private readonly target: { readonly path: string } | { readonly host: string; readonly port: number }

  constructor(target: { readonly path: string } | { readonly host: string; readonly port: number }) {
    this.target = target
  }

  async start(): Promise<this> {
    this.server = Net.createServer((client) => {
      if (this.cutOff) return void client.destroy()
      const upstream = "path" in this.target ? Net.connect({ path: this.target.path }) : Net.connect(this.target)
      for (const socket of [client, upstream]) {
        this.sockets.add(socket)
        socket.on("close", () => this.sockets.delete(socket))
        socket.on("error", () => {
          client.destroy()
          upstream.destroy()
        })
      }
      client.pipe(upstream)
      upstream.pipe(client)
    })
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve))
    this.port = (this.server!.address() as AddressInfo).port
    return this
  }

  cut(): void {
    this.cutOff = true
    for (const socket of this.sockets) {
      // A reset where TCP allows it (the client side), a plain close on a unix socket.
      try {
        socket.resetAndDestroy()
      } catch {
        socket.destroy()
      }
    }
  }

  restore(): void {
    this.cutOff = false
  }

  async stop(): Promise<void> {
    this.cut()
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve())
  }
}
