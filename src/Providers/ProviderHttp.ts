import type { Readable } from "node:stream"
import * as Cause from "effect/Cause"
import * as Channel from "effect/Channel"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as Tracer from "effect/Tracer"
import type * as Sse from "effect/encoding/Sse"
import * as HttpTraceContext from "effect/http/HttpTraceContext"
// undici's package root loads fetch, WebSocket, caching and mocking as well (about 1 MB of source
// kept on the heap); only the Agent is used.
import Agent from "undici/lib/dispatcher/agent.js"
import type { ProviderConfig } from "../Domain/GatewayConfig.ts"
import type { GatewayError } from "../Domain/GatewayError.ts"
import { registerSecret } from "../Domain/SecretRedaction.ts"
import { batchStage, type StageEnd } from "../Streams/BatchStage.ts"
import type { Deadline } from "../Streams/Deadline.ts"
import { optionalSpans } from "../Streams/OptionalSpans.ts"
import { badResponse } from "./ProviderErrors.ts"
import { makeSseDecoder } from "./SseDecoder.ts"
import { UpstreamExchange } from "./UpstreamExchange.ts"

/** A request body: text, bytes, or a stream made afresh for each attempt (a file read from disk). */
export type UpstreamBody = string | Uint8Array | Readable

export interface UpstreamRequest {
  readonly method: "GET" | "POST" | "DELETE"
  readonly url: string
  /** Sent as they are: the caller sets the content type (and length, for a stream). */
  readonly headers: Readonly<Record<string, string>>
  readonly body?: UpstreamBody
}

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
  /**
   * POST a JSON body and read the whole answer (non-streamed calls and error bodies). A binary
   * body (a multipart upload) goes with its own `content-type` header. With `deadline`, the call
   * fails with the deadline's error when it passes (see `UpstreamExchange`).
   */
  readonly postJson: (
    url: string,
    headers: Readonly<Record<string, string>>,
    body: string | Uint8Array,
    deadline?: Deadline
  ) => Effect.Effect<UpstreamResponse & { readonly text: string }, GatewayError>
  /** Any method and body (multipart uploads, files streamed from disk); reads the whole answer. */
  readonly send: (request: UpstreamRequest) => Effect.Effect<UpstreamResponse & { readonly text: string }, GatewayError>
  /** POST and stream the answer; the body stream is bounded by first-byte, idle and total timeouts. */
  readonly postStream: (
    url: string,
    headers: Readonly<Record<string, string>>,
    body: string
  ) => Effect.Effect<UpstreamResponse & { readonly body: Stream.Stream<Uint8Array, GatewayError> }, GatewayError>
}

const decoder = new TextDecoder()

/** How long the unread end of a finished stream may take to arrive before its socket is closed. */
const drainMs = 1000

const headerOf = (exchange: UpstreamExchange) => (name: string): string | undefined => {
  const value = exchange.headers[name.toLowerCase()]
  return Array.isArray(value) ? value.join(", ") : value
}

/** Origin and path of each URL the adapters use; they use a handful, so parse each once. */
const targets = new Map<string, { readonly origin: string; readonly path: string; readonly url: URL }>()
const targetOf = (url: string) => {
  let target = targets.get(url)
  if (target === undefined) {
    const parsed = new URL(url)
    target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}`, url: parsed }
    if (targets.size >= 1000) targets.clear()
    targets.set(url, target)
  }
  return target
}

/**
 * The body of a streamed answer: every chunk buffered since the last read, as one element array.
 * It waits (`onChange`) while the exchange is receiving or paused with nothing buffered; a failed
 * exchange fails it, an ended or aborted one ends it (see the phases in UpstreamExchange.ts).
 */
const bodyStream = (exchange: UpstreamExchange): Stream.Stream<Uint8Array, GatewayError> => {
  const wait = Effect.callback<void>((resume) => {
    exchange.onChange = () => resume(Effect.void)
    return Effect.sync(() => {
      exchange.onChange = undefined
    })
  })
  const waitThenPull = Effect.flatMap(wait, () => pull)
  const pull: Effect.Effect<readonly [Uint8Array, ...Array<Uint8Array>], GatewayError | Cause.Done> = Effect.suspend(() => {
    if (exchange.chunks.length > 0) return Effect.succeed(exchange.take() as [Buffer, ...Array<Buffer>])
    if (exchange.failure !== undefined) return Effect.fail(exchange.failure)
    if (exchange.ended) return Cause.done()
    return waitThenPull
  })
  // A reader that stops early because it failed or was interrupted (the client went away)
  // takes the upstream request with it; one that stopped because it had everything (the SSE
  // terminator came just before the body's end) lets the rest drain so the connection is kept.
  const close = (exit: Exit.Exit<unknown, unknown>) =>
    Effect.sync(() => (Exit.isSuccess(exit) ? exchange.release(drainMs) : exchange.abort()))
  return Stream.fromChannel(Channel.fromTransform((_, scope) => Effect.as(Scope.addFinalizerExit(scope, close), pull)))
}

/**
 * Registers the provider's key, and the values of configured headers that carry credentials, with
 * the process-wide redactor, so no upstream error text can relay them (see SecretRedaction.ts).
 */
export const registerProviderSecrets = (provider: ProviderConfig): void => {
  if (provider.api_key !== undefined) registerSecret(Redacted.value(provider.api_key))
  for (const [name, value] of Object.entries(provider.headers ?? {})) {
    if (/key|token|auth|secret|password/i.test(name)) registerSecret(value)
  }
}

export const makeProviderHttp = (provider: ProviderConfig) =>
  Effect.gen(function* () {
    registerProviderSecrets(provider)
    const timeouts = provider.timeouts
    const dispatcher = yield* Effect.acquireRelease(
      Effect.sync(
        () =>
          new Agent({
            connect: { timeout: timeouts.connect_ms },
            // UpstreamExchange enforces the provider's first-byte, idle and total timeouts itself;
            // undici's own header and body timers would be a second timer per request.
            headersTimeout: 0,
            bodyTimeout: 0,
            keepAliveTimeout: 30_000,
            keepAliveMaxTimeout: 600_000
          })
      ),
      (agent) => Effect.promise(() => agent.destroy())
    )
    const spans = yield* optionalSpans
    const id = provider.id

    /** Starts a streamed exchange and waits (`onHead`) until it leaves `awaiting-head`; interruption aborts it. */
    const start = (url: string, headers: Readonly<Record<string, string>>, body: string) =>
      Effect.callback<UpstreamExchange, GatewayError>((resume) => {
        const target = targetOf(url)
        const exchange = new UpstreamExchange(id, timeouts, true)
        const all: Record<string, string> = { "content-type": "application/json", ...headers }
        exchange.onHead = () => resume(exchange.failure === undefined ? Effect.succeed(exchange) : Effect.fail(exchange.failure))
        dispatcher.dispatch({ origin: target.origin, path: target.path, method: "POST", headers: all, body }, exchange)
        return Effect.sync(() => exchange.abort())
      })

    // With a tracer installed: a CLIENT span per call, propagated to the provider (W3C and B3).
    const traced = <A>(
      url: string,
      headers: Readonly<Record<string, string>>,
      call: (headers: Readonly<Record<string, string>>) => Effect.Effect<A & { status: number }, GatewayError>,
      method = "POST"
    ): Effect.Effect<A & { status: number }, GatewayError> => {
      if (!spans.enabled) return call(headers)
      const target = targetOf(url).url
      return Effect.useSpan(method, { kind: "client" }, (span: Tracer.Span) => {
        span.attribute("http.request.method", method)
        span.attribute("url.full", `${target.origin}${target.pathname}`)
        span.attribute("server.address", target.hostname)
        span.attribute("server.port", Number(target.port || (target.protocol === "https:" ? 443 : 80)))
        return call({ ...headers, ...HttpTraceContext.toHeaders(span) }).pipe(
          Effect.tap((response) => Effect.sync(() => span.attribute("http.response.status_code", response.status))),
          Effect.withParentSpan(span, { captureStackTrace: false })
        )
      })
    }

    // One wait for the whole answer: headers and body usually come in the same read.
    const exchangeJson = (url: string, headers: Readonly<Record<string, string>>, body: string | Uint8Array, deadline: Deadline | undefined) =>
      exchangeWhole({ method: "POST", url, headers: { "content-type": "application/json", ...headers }, body }, deadline)
    const exchangeWhole = ({ method, url, headers, body }: UpstreamRequest, deadline?: Deadline) =>
      Effect.callback<UpstreamResponse & { readonly text: string }, GatewayError>((resume) => {
        const target = targetOf(url)
        const exchange = new UpstreamExchange(id, timeouts, false, deadline)
        const settle = () => {
          if (exchange.failure !== undefined) return resume(Effect.fail(exchange.failure))
          if (!exchange.ended) {
            exchange.onChange = settle
            return
          }
          const chunks = exchange.take()
          const text = chunks.length === 0 ? "" : decoder.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))
          resume(Effect.succeed({ status: exchange.status, header: headerOf(exchange), text }))
        }
        exchange.onHead = settle
        dispatcher.dispatch({ origin: target.origin, path: target.path, method, headers, body: body ?? null }, exchange)
        return Effect.sync(() => exchange.abort())
      })

    const postJson = (url: string, headers: Readonly<Record<string, string>>, body: string | Uint8Array, deadline?: Deadline) =>
      traced(url, headers, (all) => exchangeJson(url, all, body, deadline)).pipe(spans.span("ProviderHttp.postJson"))

    const send = (request: UpstreamRequest) =>
      traced(request.url, request.headers, (all) => exchangeWhole({ ...request, headers: all }), request.method).pipe(spans.span("ProviderHttp.send"))

    const postStream = (url: string, headers: Readonly<Record<string, string>>, body: string) =>
      traced(url, headers, (all) =>
        Effect.map(start(url, all, body), (exchange) => ({
          status: exchange.status,
          header: headerOf(exchange),
          body: bodyStream(exchange)
        }))
      ).pipe(spans.span("ProviderHttp.postStream"))

    return { provider, postJson, send, postStream } satisfies ProviderHttp
  })

/**
 * SSE events of a byte stream; CRLF, CR and LF framing, a leading BOM and any read split are
 * handled (see SseDecoder.ts: one step per network read for decoding and parsing together). An
 * SSE `retry:` directive or an oversized event ends the stream like a broken body.
 */
export const sseEvents = (
  provider: string,
  bytes: Stream.Stream<Uint8Array, GatewayError>
): Stream.Stream<Sse.Event, GatewayError> =>
  batchStage(bytes, (end: StageEnd<GatewayError>) => {
    const text = new TextDecoder()
    const decoder = makeSseDecoder()
    return {
      step: (chunks) => {
        const parsed: Array<Sse.Event> = []
        for (const chunk of chunks) {
          const result = decoder.feed(text.decode(chunk, { stream: true }), parsed)
          if (result === "too-large") {
            end.fail(badResponse(provider, "malformed event stream"))
            return []
          }
          // The events before a `retry:` directive still go out.
          if (result === "retry") end.fail(badResponse(provider, "malformed event stream"))
        }
        return parsed
      }
    }
  })
