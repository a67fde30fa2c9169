import { NodeHttpClient } from "@effect/platform-node"
import * as Undici from "@effect/platform-node/Undici"
import { Effect, Stream } from "effect"
import { Sse } from "effect/encoding"
import { type HttpClient, HttpClientRequest, type HttpClientResponse } from "effect/http"
import type { ProviderConfig, ProviderTimeouts } from "../Domain/GatewayConfig.ts"
import type { GatewayError } from "../Domain/GatewayError.ts"
import { withStreamTimeouts } from "../Streams/StreamTimeouts.ts"
import { badResponse, connectFailure, timeoutFailure } from "./ProviderErrors.ts"

export interface UpstreamResponse {
  readonly status: number
  readonly header: (name: string) => string | undefined
}

/**
 * One HTTP client per provider, on its own connection pool so a slow provider cannot starve
 * another, with the provider's timeouts applied to the body and not only to the headers.
 */
export interface ProviderHttp {
  readonly provider: ProviderConfig
  /** POST a JSON body and read the whole answer (non-streamed calls and error bodies). */
  readonly postJson: (
    url: string,
    headers: Readonly<Record<string, string>>,
    body: string
  ) => Effect.Effect<UpstreamResponse & { readonly text: string }, GatewayError>
  /** POST and stream the answer; the body stream is bounded by first-byte, idle and total timeouts. */
  readonly postStream: (
    url: string,
    headers: Readonly<Record<string, string>>,
    body: string
  ) => Effect.Effect<UpstreamResponse & { readonly body: Stream.Stream<Uint8Array, GatewayError> }, GatewayError>
}

const causeText = (cause: unknown): string => {
  const inner = typeof cause === "object" && cause !== null && "cause" in cause ? (cause as { cause: unknown }).cause : cause
  if (inner instanceof Error) return (inner as NodeJS.ErrnoException).code ?? inner.message
  return String(inner)
}

export const makeProviderHttp = (provider: ProviderConfig) =>
  Effect.gen(function* () {
    const timeouts: ProviderTimeouts = provider.timeouts
    const dispatcher = yield* Effect.acquireRelease(
      Effect.sync(
        () =>
          new Undici.Agent({
            connect: { timeout: timeouts.connect_ms },
            keepAliveTimeout: 30_000,
            keepAliveMaxTimeout: 600_000
          })
      ),
      (agent) => Effect.promise(() => agent.destroy())
    )
    const client: HttpClient.HttpClient = yield* NodeHttpClient.makeUndici.pipe(
      Effect.provideService(NodeHttpClient.Dispatcher, dispatcher)
    )
    const id = provider.id

    const send = (url: string, headers: Readonly<Record<string, string>>, body: string) =>
      client
        .execute(HttpClientRequest.post(url).pipe(HttpClientRequest.setHeaders(headers), HttpClientRequest.bodyText(body, "application/json")))
        .pipe(
          Effect.timeoutOrElse({
            duration: timeouts.first_byte_ms,
            orElse: () => Effect.fail(timeoutFailure(id, `no response within ${timeouts.first_byte_ms} ms`))
          }),
          Effect.catchTag("HttpClientError", (error) => Effect.fail(connectFailure(id, causeText(error.reason))))
        )

    const view = (response: HttpClientResponse.HttpClientResponse): UpstreamResponse => ({
      status: response.status,
      header: (name) => response.headers[name]
    })

    const postJson = Effect.fn("ProviderHttp.postJson")(function* (
      url: string,
      headers: Readonly<Record<string, string>>,
      body: string
    ) {
      const response = yield* send(url, headers, body)
      const text = yield* response.text.pipe(
        Effect.catchTag("HttpClientError", (error) => Effect.fail(connectFailure(id, causeText(error.reason))))
      )
      return { ...view(response), text }
    }, Effect.timeoutOrElse({
      duration: timeouts.total_ms,
      orElse: () => Effect.fail(timeoutFailure(id, `the call took longer than ${timeouts.total_ms} ms`))
    }))

    const postStream = Effect.fn("ProviderHttp.postStream")(function* (
      url: string,
      headers: Readonly<Record<string, string>>,
      body: string
    ) {
      const started = Date.now()
      const response = yield* send(url, headers, body)
      const bytes = response.stream.pipe(
        Stream.catchTag("HttpClientError", (error) => Stream.fail(connectFailure(id, causeText(error.reason))))
      )
      const bounded = withStreamTimeouts(bytes, {
        firstMs: Math.max(1, timeouts.first_byte_ms - (Date.now() - started)),
        idleMs: timeouts.idle_ms,
        onFirst: () => timeoutFailure(id, `no data within ${timeouts.first_byte_ms} ms`),
        onIdle: () => timeoutFailure(id, `the stream was silent for ${timeouts.idle_ms} ms`)
      }).pipe(
        Stream.timeoutOrElse({
          duration: timeouts.total_ms,
          orElse: () => Stream.fail(timeoutFailure(id, `the stream took longer than ${timeouts.total_ms} ms`))
        })
      )
      return { ...view(response), body: bounded }
    })

    return { provider, postJson, postStream } satisfies ProviderHttp
  })

/** SSE `data` payloads of a byte stream; CRLF, CR and LF framing and any read split are handled. */
export const sseEvents = (
  provider: string,
  bytes: Stream.Stream<Uint8Array, GatewayError>
): Stream.Stream<Sse.Event, GatewayError> =>
  bytes.pipe(
    Stream.decodeText(),
    Stream.pipeThroughChannel(Sse.decode()),
    // An SSE `retry:` directive or an oversized event ends the stream like a broken body.
    Stream.mapError((error) => (isGatewayError(error) ? error : badResponse(provider, "malformed event stream")))
  )

const isGatewayError = (error: unknown): error is GatewayError =>
  typeof error === "object" && error !== null && "_tag" in error && error._tag === "GatewayError"
