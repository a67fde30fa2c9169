import { expect } from "@effect/vitest"
import { Schema } from "effect"

/** A reply of the admin API (or of any gateway route), body parsed but not yet trusted. */
export interface Reply {
  readonly status: number
  readonly body: unknown
}

export interface CallOptions {
  readonly body?: unknown
  /** Sent as is, instead of `body` as JSON. */
  readonly raw?: string
  readonly headers?: Readonly<Record<string, string>>
  /** The whole Authorization header; null sends none. Default: the admin bearer token. */
  readonly auth?: string | null
}

export const adminCall =
  (baseUrl: () => string, token: string) =>
  async (method: string, path: string, options: CallOptions = {}): Promise<Reply> => {
    const headers: Record<string, string> = { ...options.headers }
    const auth = options.auth === undefined ? `Bearer ${token}` : options.auth
    if (auth !== null) headers["authorization"] = auth
    const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body))
    if (body !== undefined) headers["content-type"] ??= "application/json"
    const res = await fetch(`${baseUrl()}${path}`, { method, headers, ...(body === undefined ? {} : { body }) })
    const text = await res.text()
    return { status: res.status, body: text === "" ? undefined : (JSON.parse(text) as unknown) }
  }

/** Exact decoding: a field the schema does not name (a secret, a hash) fails the test. */
export const decodeExact = <S extends Schema.Decoder<unknown>>(schema: S, value: unknown): S["Type"] =>
  Schema.decodeUnknownSync(schema)(value, { onExcessProperty: "error" })

export const expectBody = <S extends Schema.Decoder<unknown>>(schema: S, reply: Reply, status = 200): S["Type"] => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status)
  return decodeExact(schema, reply.body)
}

export const ErrorEnvelope = Schema.Struct({
  error: Schema.Struct({
    message: Schema.String,
    type: Schema.String,
    param: Schema.NullOr(Schema.String),
    code: Schema.NullOr(Schema.String)
  })
})

/** The gateway's error envelope, exactly: `{"error":{message,type,param,code}}` and nothing else. */
export const expectEnvelope = (reply: Reply, status: number, type: string, param: string | null = null) => {
  const { error } = expectBody(ErrorEnvelope, reply, status)
  expect(error.type).toBe(type)
  expect(error.param).toBe(param)
  expect(error.message).not.toBe("")
  return error
}

export const listOf = <S extends Schema.Top>(item: S) => Schema.Struct({ object: Schema.Literal("list"), data: Schema.Array(item) })
