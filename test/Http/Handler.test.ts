import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { GatewayError } from "../../src/Domain/GatewayError.ts"
import { handle } from "../../src/Http/Handler.ts"

const app = (effect: Effect.Effect<HttpServerResponse.HttpServerResponse, GatewayError>, files = false) =>
  HttpRouter.toWebHandler(HttpRouter.add("GET", "/x", handle(effect, { filesEndpoint: files })).pipe(Layer.provide(Layer.empty)), {
    disableLogger: true
  })

const call = async (effect: Effect.Effect<HttpServerResponse.HttpServerResponse, GatewayError>, files = false) => {
  const { handler, dispose } = app(effect, files)
  try {
    const res = await handler(new Request("http://localhost/x"))
    return { status: res.status, headers: res.headers, body: (await res.json()) as any }
  } finally {
    await dispose()
  }
}

describe("handle", () => {
  it("turns a defect into a 500 that names the request id and hides the cause", async () => {
    const res = await call(Effect.die(new Error("secret stack detail")))
    expect(res.status).toBe(500)
    expect(res.body.error.type).toBe("internal_server_error")
    const id = res.headers.get("x-request-id")!
    expect(id).toMatch(/^req_/)
    expect(res.body.error.message).toContain(id)
    expect(JSON.stringify(res.body)).not.toContain("secret stack detail")
  })

  it("renders a typed error with its status, type, param and code", async () => {
    const res = await call(Effect.fail(GatewayError.invalid("Invalid value for 'messages[0].role'.", "messages[0].role", "bad_role")))
    expect(res.status).toBe(400)
    expect(res.body).toEqual({
      error: { message: "Invalid value for 'messages[0].role'.", type: "invalid_request_error", param: "messages[0].role", code: "bad_role" }
    })
  })

  it("reports every files error as invalid_request_error except 500", async () => {
    expect((await call(Effect.fail(GatewayError.forbidden("no user")), true)).body.error.type).toBe("invalid_request_error")
    expect((await call(Effect.fail(GatewayError.notFound("No such File object: file-x")), true)).body.error.type).toBe("invalid_request_error")
    expect((await call(Effect.die("boom"), true)).body.error.type).toBe("internal_server_error")
  })
})
