import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import * as http from "node:http"
import * as https from "node:https"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import type { TLSSocket } from "node:tls"
import { Effect, Schema } from "effect"
import { FetchSettings } from "../../../src/Domain/GatewayConfig.ts"
import type { GatewayError, InvalidRequest } from "../../../src/Domain/GatewayError.ts"

export interface SeenRequest {
  readonly path: string
  readonly host: string | undefined
  /** TLS SNI, for https servers. */
  readonly servername: string | undefined
}

export interface LoopbackServer {
  readonly port: number
  readonly origin: string
  readonly requests: Array<SeenRequest>
  /** Resolves when a request for `path` arrives. */
  readonly arrived: (path: string) => Promise<void>
  /** Resolves when the client side of a request for `path` goes away before the response ended. */
  readonly abandoned: (path: string) => Promise<void>
  readonly close: () => Promise<void>
}

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void

const waiters = () => {
  const done = new Set<string>()
  const pending = new Map<string, Array<() => void>>()
  return {
    fire: (key: string) => {
      done.add(key)
      for (const wake of pending.get(key) ?? []) wake()
      pending.delete(key)
    },
    wait: (key: string) =>
      new Promise<void>((resolve) => {
        if (done.has(key)) return resolve()
        pending.set(key, [...(pending.get(key) ?? []), resolve])
      })
  }
}

/** An HTTP(S) server on 127.0.0.1 and an ephemeral port that records what reached it. */
export const startLoopbackServer = async (
  handler: Handler,
  tls?: { readonly key: string; readonly cert: string }
): Promise<LoopbackServer> => {
  const requests: Array<SeenRequest> = []
  const arrivals = waiters()
  const abandonments = waiters()
  const listener = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const path = req.url ?? ""
    const socket = req.socket as Partial<TLSSocket>
    requests.push({ path, host: req.headers.host, servername: socket.servername || undefined })
    res.on("close", () => {
      if (!res.writableFinished) abandonments.fire(path)
    })
    arrivals.fire(path)
    handler(req, res)
  }
  const server = tls === undefined ? http.createServer(listener) : https.createServer(tls, listener)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    port,
    origin: `${tls === undefined ? "http" : "https"}://127.0.0.1:${port}`,
    requests,
    arrived: arrivals.wait,
    abandoned: abandonments.wait,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/** A port nothing listens on: bound, then released. */
export const closedPort = async (): Promise<number> => {
  const server = http.createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** A throwaway self-signed certificate for `name`, made with the openssl CLI. */
export const selfSignedCertificate = (name: string): { readonly key: string; readonly cert: string } => {
  const dir = mkdtempSync(NodePath.join(tmpdir(), "gw-tls-"))
  try {
    const key = NodePath.join(dir, "key.pem")
    const cert = NodePath.join(dir, "cert.pem")
    execFileSync(
      "openssl",
      ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
        "-subj", `/CN=${name}`, "-addext", `subjectAltName=DNS:${name}`, "-keyout", key, "-out", cert],
      { stdio: "ignore" }
    )
    return { key: readFileSync(key, "utf8"), cert: readFileSync(cert, "utf8") }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export const hasOpenssl = (): boolean => {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

/** `fetch` settings decoded like gateway.yaml, so defaults come from the schema. */
export const fetchSettings = (overrides: Record<string, unknown> = {}): FetchSettings =>
  Schema.decodeUnknownSync(FetchSettings)(overrides)

/** The 400 a refused fetch fails with; a fetch that succeeds fails the test. */
export const refusal = <A, R>(effect: Effect.Effect<A, GatewayError, R>): Effect.Effect<InvalidRequest, never, R> =>
  Effect.matchEffect(effect, {
    onSuccess: () => Effect.die(new Error("expected the fetch to be refused, but it succeeded")),
    onFailure: (error) =>
      error.reason._tag === "InvalidRequest"
        ? Effect.succeed(error.reason)
        : Effect.die(new Error(`expected InvalidRequest, got ${error.message}`))
  })
