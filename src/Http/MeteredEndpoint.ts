import type * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { freeAsk, type WorstCase } from "../Domain/AdmissionCost.ts"
import type { ApiScope, Principal } from "../Domain/ApiKey.ts"
import type { GatewayError, GatewayErrorReason } from "../Domain/GatewayError.ts"
import type { UsageEndpoint, UsageError } from "../Domain/UsageEvent.ts"
import type { AttemptLog } from "../Services/Routing/RoutedAttempts.ts"
import { type RequestOutcome, Spent } from "../Services/Usage/RequestOutcome.ts"
import { openMeter, type RequestMeter } from "../Services/Usage/UsageMeter.ts"
import { Admission } from "../Services/Billing/Admission.ts"
import { authenticated, CurrentPrincipal } from "./Authentication.ts"
import { GatewayConfigFile } from "../Services/Config/GatewayConfigLoader.ts"
import { type Dialect, statusIn } from "../Dialects/DialectErrors.ts"
import { errorResponse } from "./ErrorResponse.ts"
import { failureOf, requestIdOf, statusOfFailure } from "./Handler.ts"
import { readJsonObject } from "./JsonBody.ts"
import { capOf } from "./BodyLimits.ts"
import { noteMeter } from "./AccessLogNotes.ts"
import { routeHeaders } from "./RouteHeaders.ts"

const free = () => freeAsk

/** The error as the usage row records it: the client's `error.type` and `code`, and a provider failure's kind. */
const usageErrorOf = (type: string, reason: GatewayErrorReason): UsageError => ({
  type,
  ...("code" in reason && reason.code !== undefined ? { code: reason.code } : {}),
  ...(reason._tag === "UpstreamFailure" ? { kind: reason.kind } : {})
})

/**
 * Puts the status the client is answered with on the meter, defects included (see
 * `Handler.failureOf`), so the usage row never claims a status the client did not get.
 */
const failed = (meter: RequestMeter, retryAfterMs: number, dialect: Dialect) => (cause: Cause.Cause<GatewayError>) =>
  Effect.sync(() => {
    meter.status = statusOfFailure(cause, retryAfterMs, dialect)
    const error = failureOf(cause, retryAfterMs)
    if (error !== undefined) meter.error = usageErrorOf(statusIn(dialect, error.reason).type, error.reason)
  })

/**
 * What a model endpoint's handler gives back: what its service used (the meter's one input), and
 * the response, made with the route headers (`x-gateway-provider`...; on a stream, read when its
 * first byte goes out).
 */
export interface Answer<R = never> {
  readonly outcome: RequestOutcome
  readonly response: (headers: () => Record<string, string>) => Effect.Effect<HttpServerResponse.HttpServerResponse, GatewayError, R>
}

/** An answer whose response is made at once, from the route headers. */
export const answerWith = (
  outcome: RequestOutcome,
  make: (headers: Record<string, string>) => HttpServerResponse.HttpServerResponse
): Answer => ({ outcome, response: (headers) => Effect.succeed(make(headers())) })

/** A handler: the decoded request, the request's attempt log (for the router) and the caller. */
export type Respond<A, R, R2> = (request: A, log: AttemptLog, principal: Principal) => Effect.Effect<Answer<R2>, GatewayError | Spent, R>

/**
 * The one place the meter takes what happened: the answer's outcome, or what a failure after
 * some work used; then the response, with headers read from the meter.
 */
const answered = <A, R, R2>(respond: Respond<A, R, R2>, request: A, meter: RequestMeter, principal: Principal) =>
  respond(request, meter.log, principal).pipe(
    Effect.mapError((failure) => {
      if (!(failure instanceof Spent)) return failure
      meter.record(failure.outcome)
      return failure.error
    }),
    Effect.flatMap((answer) => {
      meter.record(answer.outcome)
      return answer.response(() => routeHeaders(meter))
    })
  )

/** What a dialect endpoint (Messages, Responses) changes in the shared steps. */
export interface EndpointOptions {
  /** The error shape its failures are rendered in (and recorded with); chat by default. */
  readonly dialect?: Dialect
  /** Also take the key from `x-api-key` (Anthropic's header), when there is no Authorization header. */
  readonly apiKeyHeader?: boolean
  /** Checks of the request's headers before its body is read or anything is admitted (Messages: `anthropic-version`). */
  readonly headers?: (request: HttpServerRequest.HttpServerRequest) => GatewayError | undefined
}

/**
 * The steps every model endpoint shares, whatever its body: the key is checked for `scope`, a
 * usage meter is opened (written when the request ends, whatever happens), admission's header
 * check runs, the body is read (within its route's cap) and decoded, and the status of a
 * failure is put on the meter. Written as a chain rather than
 * a generator: this runs on every request, and each step of a generator costs an iterator
 * round trip.
 */
const metered = <A extends { readonly model: string }, R1, R, R2>(
  scope: ApiScope,
  endpoint: UsageEndpoint,
  read: Effect.Effect<A, GatewayError, R1>,
  respond: Respond<A, R, R2>,
  worstCase: WorstCase<A> | undefined,
  options: EndpointOptions = {}
) => {
  const dialect = options.dialect ?? "chat"
  return authenticated(
    scope,
    Effect.flatMap(Effect.context<CurrentPrincipal | HttpServerRequest.HttpServerRequest | GatewayConfigFile | Admission>(), (context) => {
      const principal = Context.get(context, CurrentPrincipal)
      const admission = Context.get(context, Admission)
      const retryAfterMs = Context.get(context, GatewayConfigFile).config.resilience.retry_after_seconds * 1000
      const httpRequest = Context.get(context, HttpServerRequest.HttpServerRequest)
      const requestId = requestIdOf(httpRequest)
      const refused = options.headers?.(httpRequest)
      return Effect.flatMap(openMeter({ principal, endpoint, requestId }), (meter) => {
        noteMeter(httpRequest.source, meter)
        // What the headers decide comes before the body is read: a caller already over its
        // request rate or out of credit is refused without the gateway reading its body.
        return (refused === undefined ? Effect.andThen(admission.precheck(principal), read) : Effect.fail(refused)).pipe(
          Effect.flatMap((request) => {
            meter.requestedModel = request.model
            if (dialect !== "chat") meter.dialect = dialect
            // The one admission step: rate limits and the worst-case reservation, before
            // anything is sent upstream; the meter's finalizer settles it.
            const ask = worstCase === undefined ? free : () => worstCase(request, admission.costContext)
            return Effect.flatMap(admission.admit(principal, request.model, ask, requestId), (ticket) => {
              if (ticket === undefined) return answered(respond, request, meter, principal)
              meter.settle = ticket.settle
              meter.billedTo = ticket.billedTo
              const headers = ticket.headers
              if (headers === undefined) return answered(respond, request, meter, principal)
              // The rate-limit headers go on the answer whatever it is, an error included:
              // rendered here, after its status is put on the meter.
              return answered(respond, request, meter, principal).pipe(
                Effect.map((response) => HttpServerResponse.setHeaders(response, headers)),
                Effect.tapCause(failed(meter, retryAfterMs, dialect)),
                Effect.catch((error) =>
                  Effect.succeed(HttpServerResponse.setHeaders(errorResponse(error, { requestId, dialect }), headers))
                )
              )
            })
          }),
          Effect.tapCause(failed(meter, retryAfterMs, dialect))
        )
      })
    }),
    options.apiKeyHeader === true
  )
}

/** A model endpoint with a JSON body (`Content-Type: application/json`), decoded by `decode`. */
export const meteredEndpoint = <A extends { readonly model: string }, R, R2>(
  scope: ApiScope,
  endpoint: UsageEndpoint,
  decode: (body: Record<string, unknown>) => Effect.Effect<A, GatewayError>,
  respond: Respond<A, R, R2>,
  worstCase?: WorstCase<A>,
  options?: EndpointOptions
) => metered(scope, endpoint, Effect.flatMap(readJsonObject((table) => capOf(table, endpoint)), decode), respond, worstCase, options)

/**
 * A model endpoint whose request is made by `read` (a JSON body decoded and then completed from
 * storage, say); the key, meter and failure status are handled exactly as for JSON bodies.
 */
export const meteredReadEndpoint = <A extends { readonly model: string }, R1, R, R2>(
  scope: ApiScope,
  endpoint: UsageEndpoint,
  read: Effect.Effect<A, GatewayError, R1>,
  respond: Respond<A, R, R2>,
  worstCase?: WorstCase<A>,
  options?: EndpointOptions
) => metered(scope, endpoint, read, respond, worstCase, options)

/**
 * A model endpoint with a multipart/form-data body (audio uploads): `read` consumes the form
 * (see `MultipartForm.ts`), streaming its file to wherever the endpoint keeps it, and gives
 * the request; the key, meter and failure status are handled exactly as for JSON bodies.
 */
export const meteredMultipartEndpoint = <A extends { readonly model: string }, R1, R, R2>(
  scope: ApiScope,
  endpoint: UsageEndpoint,
  read: Effect.Effect<A, GatewayError, R1>,
  respond: Respond<A, R, R2>,
  worstCase?: WorstCase<A>
) => metered(scope, endpoint, read, respond, worstCase)

/**
 * The admission step for an endpoint without a price (file uploads): the caller's rate limits
 * only, checked before the body is read, with the `x-ratelimit-*` headers on the answer.
 */
export const rateLimitedOnly = <E, R>(handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.flatMap(Effect.context<CurrentPrincipal | HttpServerRequest.HttpServerRequest | Admission>(), (context) => {
    const requestId = requestIdOf(Context.get(context, HttpServerRequest.HttpServerRequest))
    return Effect.flatMap(Context.get(context, Admission).admit(Context.get(context, CurrentPrincipal), "", free, requestId), (ticket) => {
      const headers = ticket?.headers
      return headers === undefined ? handler : Effect.map(handler, (response) => HttpServerResponse.setHeaders(response, headers))
    })
  })
