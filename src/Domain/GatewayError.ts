import * as Schema from "effect/Schema"

/**
 * Every failure the gateway reports to a client is a `GatewayError` carrying one `reason`.
 * Each reason knows whether retrying the same request could succeed and, for upstream
 * throttling, how long to wait. The HTTP status and `error.type` are decided in exactly one
 * place: `src/Http/ErrorResponse.ts`.
 */

const Param = Schema.optionalKey(Schema.String)
const Code = Schema.optionalKey(Schema.String)

/** Schema violation or an unsupported parameter value; `param` names the field. */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", {
  message: Schema.String,
  param: Param,
  code: Code
}) {
  get isRetryable(): boolean {
    return false
  }
}

export class Unauthenticated extends Schema.TaggedError<Unauthenticated>()("Unauthenticated", {
  message: Schema.String,
  code: Code
}) {
  get isRetryable(): boolean {
    return false
  }
}

export class PaymentRequired extends Schema.TaggedError<PaymentRequired>()("PaymentRequired", {
  message: Schema.String,
  code: Code
}) {
  get isRetryable(): boolean {
    return false
  }
}

export class PermissionDenied extends Schema.TaggedError<PermissionDenied>()("PermissionDenied", {
  message: Schema.String,
  code: Code
}) {
  get isRetryable(): boolean {
    return false
  }
}

export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  message: Schema.String,
  param: Param,
  code: Code
}) {
  get isRetryable(): boolean {
    return false
  }
}

export class MethodNotAllowed extends Schema.TaggedError<MethodNotAllowed>()("MethodNotAllowed", {
  message: Schema.String,
  allow: Schema.Array(Schema.String)
}) {
  get isRetryable(): boolean {
    return false
  }
}

export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", {
  message: Schema.String,
  param: Param
}) {
  get isRetryable(): boolean {
    return false
  }
}

/** Wrong request Content-Type, or a content part the model cannot take (audio, file, video). */
export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()("UnsupportedMediaType", {
  message: Schema.String,
  param: Param
}) {
  get isRetryable(): boolean {
    return false
  }
}

/** The gateway's own limits, or every upstream answering 429. */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  message: Schema.String,
  retryAfterMs: Schema.optionalKey(Schema.Number),
  code: Code,
  /** The gateway's own limits: the `x-ratelimit-*` headers of the refused request. */
  headers: Schema.optionalKey(Schema.Record(Schema.String, Schema.String))
}) {
  get isRetryable(): boolean {
    return true
  }
}

/**
 * A provider failed. `status` is the upstream HTTP status when there was one; `retryable`
 * is decided by the provider's error codec from the status and error body, never from text.
 */
export class UpstreamFailure extends Schema.TaggedError<UpstreamFailure>()("UpstreamFailure", {
  message: Schema.String,
  provider: Schema.String,
  status: Schema.optionalKey(Schema.Number),
  kind: Schema.Literals([
    "connect",
    "timeout",
    "rate_limited",
    "overloaded",
    "server",
    "bad_response",
    "rejected",
    "auth"
  ]),
  retryAfterMs: Schema.optionalKey(Schema.Number),
  /** The upstream said the request itself is bad (a client mistake that our checks did not catch). */
  clientFault: Schema.optionalKey(Schema.Boolean)
}) {
  get isRetryable(): boolean {
    switch (this.kind) {
      case "connect":
      case "timeout":
      case "rate_limited":
      case "overloaded":
      case "server":
        return true
      case "bad_response":
      case "rejected":
      case "auth":
        return false
    }
  }
}

/** The client stopped sending its request body for longer than the body-read timeout. */
export class RequestTimeout extends Schema.TaggedError<RequestTimeout>()("RequestTimeout", {
  message: Schema.String
}) {
  get isRetryable(): boolean {
    return true
  }
}

/**
 * A dependency of the gateway itself (the database) is unreachable. Not the client's fault and
 * not a provider's: the same request can succeed after `retryAfterMs`.
 */
export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()("ServiceUnavailable", {
  message: Schema.String,
  retryAfterMs: Schema.Number,
  code: Code
}) {
  get isRetryable(): boolean {
    return true
  }
}

/** Something we did not expect. The message stays in the logs; the client sees only the request id. */
export class Internal extends Schema.TaggedError<Internal>()("Internal", {
  message: Schema.String
}) {
  get isRetryable(): boolean {
    return true
  }
}

export const GatewayErrorReason = Schema.Union([
  InvalidRequest,
  Unauthenticated,
  PaymentRequired,
  PermissionDenied,
  NotFound,
  MethodNotAllowed,
  PayloadTooLarge,
  UnsupportedMediaType,
  RateLimited,
  UpstreamFailure,
  RequestTimeout,
  ServiceUnavailable,
  Internal
])
export type GatewayErrorReason = typeof GatewayErrorReason.Type

export class GatewayError extends Schema.TaggedError<GatewayError>()("GatewayError", {
  reason: GatewayErrorReason
}) {
  get isRetryable(): boolean {
    return this.reason.isRetryable
  }

  get retryAfterMs(): number | undefined {
    return "retryAfterMs" in this.reason ? this.reason.retryAfterMs : undefined
  }

  override get message(): string {
    return `${this.reason._tag}: ${this.reason.message}`
  }

  static invalid(message: string, param?: string, code?: string): GatewayError {
    return new GatewayError({
      reason: new InvalidRequest({
        message,
        ...(param === undefined ? {} : { param }),
        ...(code === undefined ? {} : { code })
      })
    })
  }

  static notFound(message: string, param?: string, code?: string): GatewayError {
    return new GatewayError({
      reason: new NotFound({
        message,
        ...(param === undefined ? {} : { param }),
        ...(code === undefined ? {} : { code })
      })
    })
  }

  static unsupportedMedia(message: string, param?: string): GatewayError {
    return new GatewayError({
      reason: new UnsupportedMediaType({ message, ...(param === undefined ? {} : { param }) })
    })
  }

  static tooLarge(message: string, param?: string): GatewayError {
    return new GatewayError({ reason: new PayloadTooLarge({ message, ...(param === undefined ? {} : { param }) }) })
  }

  static unauthenticated(message: string, code?: string): GatewayError {
    return new GatewayError({ reason: new Unauthenticated({ message, ...(code === undefined ? {} : { code }) }) })
  }

  static forbidden(message: string, code?: string): GatewayError {
    return new GatewayError({ reason: new PermissionDenied({ message, ...(code === undefined ? {} : { code }) }) })
  }

  static internal(message: string): GatewayError {
    return new GatewayError({ reason: new Internal({ message }) })
  }
}

/** A model id nobody configured: the same 404 on every endpoint. */
export const unknownModel = (model: string): GatewayError =>
  GatewayError.notFound(`The model '${model}' does not exist or you do not have access to it.`, "model", "model_not_found")

/**
 * A key without the endpoint's scope: its id and scopes, and the two ways to get the scope
 * (the admin adds it to this key, or makes a new key with it).
 */
export const missingScope = (needed: string, keyId: string, has: Iterable<string>): GatewayError => {
  const scopes = [...has]
  return GatewayError.forbidden(
    `This API key (${keyId}) does not have the '${needed}' scope required by this endpoint; its scopes are ${scopes.length === 0 ? "none" : scopes.join(", ")}. ` +
      `An admin can add '${needed}' to this key (the console's Keys page, or POST /admin/keys/${keyId}/scopes with {"scopes":[${[...scopes, needed].map((s) => `"${s}"`).join(",")}]}) ` +
      `or create a new key with it (npm run admin -- keys create --project <project_id> --scopes ${[...scopes, needed].join(",")}).`,
    "missing_scope"
  )
}
