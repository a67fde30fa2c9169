import * as Net from "node:net"

// A TCP connection is reset (RST), as a stopped server's is; a unix socket can only be closed.
const reset = (socket: Net.Socket) => {
  try {
    socket.resetAndDestroy()
  } catch {
    socket.destroy()
  }
}

/** Where a proxy forwards to: a TCP port or a unix socket. */
export type ProxyTarget = { readonly host: string; readonly port: number } | { readonly path: string }

/**
 * A TCP proxy on loopback in front of a database or Redis, which a test can cut and restore to
 * play "the server stopped" without touching the machine's shared servers. While cut, every open
 * connection is reset and new ones are reset as soon as they are accepted, as a stopped server's
 * port refuses them; restoring lets new connections through again.
 */
export class CuttableProxy {
  private readonly target: ProxyTarget
  private readonly sockets = new Set<Net.Socket>()
  private server: Net.Server | undefined
  private cutOff = false
  port = 0
  /** Connections accepted so far, forwarded or reset. */
  accepted = 0

  constructor(target: ProxyTarget) {
    this.target = target
  }

  async start(): Promise<this> {
    this.server = Net.createServer((client) => this.accept(client))
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve))
    this.port = (this.server.address() as Net.AddressInfo).port
    return this
  }

  get isCut(): boolean {
    return this.cutOff
  }

  cut(): void {
    this.cutOff = true
    for (const socket of this.sockets) reset(socket)
    this.sockets.clear()
  }

  restore(): void {
    this.cutOff = false
  }

  async stop(): Promise<void> {
    this.cut()
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve())
  }

  private accept(client: Net.Socket): void {
    this.accepted++
    if (this.cutOff) {
      reset(client)
      return
    }
    const upstream = "path" in this.target ? Net.connect({ path: this.target.path }) : Net.connect(this.target.port, this.target.host)
    for (const socket of [client, upstream]) {
      this.sockets.add(socket)
      socket.on("error", () => undefined)
      socket.on("close", () => {
        this.sockets.delete(socket)
        client.destroy()
        upstream.destroy()
      })
    }
    client.pipe(upstream)
    upstream.pipe(client)
  }
}
