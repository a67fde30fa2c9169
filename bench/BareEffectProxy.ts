import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { NodeHttpClient, NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { Agent, request as undiciRequest } from "undici"
import { FetchHttpClient, HttpClient, HttpClientRequest, HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"

/**
 * The cost of the frame alone: Effect's HttpRouter on NodeHttpServer forwarding the body with
 * Effect's HttpClient and streaming the answer back. No auth, no decoding, no usage.
 * `node bench/BareEffectProxy.ts <upstreamPort> [undici|node|fetch|raw]` (raw: undici.request without
 * Effect's client, buffering the answer), prints `{"port":N}`.
 */
const upstreamPort = Number(process.argv[2])
const clientKind = process.argv[3] ?? "undici"

const ClientLive =
  clientKind === "fetch" ? FetchHttpClient.layer : clientKind === "node" ? NodeHttpClient.layerNodeHttp : NodeHttpClient.layerUndici

const agent = new Agent({ keepAliveTimeout: 30_000 })

// The same forward with undici.request called directly: the cost of Effect's server alone.
const forwardRaw = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const body = yield* request.text
  const answer = yield* Effect.promise((signal) =>
    undiciRequest(`http://127.0.0.1:${upstreamPort}${request.url}`, {
      method: "POST",
      dispatcher: agent,
      signal,
      headers: { "content-type": "application/json", authorization: request.headers["authorization"] ?? "" },
      body
    })
  )
  const bytes = new Uint8Array(yield* Effect.promise(() => answer.body.arrayBuffer()))
  return HttpServerResponse.uint8Array(bytes, {
    status: answer.statusCode,
    contentType: String(answer.headers["content-type"] ?? "application/json")
  })
}).pipe(Effect.orDie)

const forwardEffect = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const body = yield* request.text
  const client = yield* HttpClient.HttpClient
  const answer = yield* client.execute(
    HttpClientRequest.post(`http://127.0.0.1:${upstreamPort}${request.url}`).pipe(
      HttpClientRequest.setHeader("authorization", request.headers["authorization"] ?? ""),
      HttpClientRequest.bodyText(body, "application/json")
    )
  )
  return HttpServerResponse.stream(answer.stream, {
    status: answer.status,
    contentType: answer.headers["content-type"] ?? "application/json"
  })
}).pipe(Effect.orDie)

const forward = clientKind === "raw" ? forwardRaw : forwardEffect

const Routes = HttpRouter.use((router) =>
  Effect.all([router.add("POST", "/v1/chat/completions", forward), router.add("POST", "/v1/embeddings", forward)])
)

const Main = HttpRouter.serve(Routes, { disableLogger: true, disableListenLog: true }).pipe(
  Layer.provide(ClientLive),
  Layer.provideMerge(NodeHttpServer.layer(() => createServer({ keepAliveTimeout: 65_000 }), { port: 0, host: "127.0.0.1" })),
  Layer.tap((context) =>
    Effect.gen(function* () {
      const server = yield* HttpServer.HttpServer
      const address = server.address as unknown as AddressInfo
      process.stdout.write(`${JSON.stringify({ port: address.port })}\n`)
    }).pipe(Effect.provideContext(context))
  )
)

NodeRuntime.runMain(Layer.launch(Main))
