import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import { GatewayError } from "../../Domain/GatewayError.ts"
import { handle } from "../Handler.ts"

/**
 * `/admin/...` while GATEWAY_ADMIN_TOKEN is unset: a 404 that says the API is off and how to turn
 * it on, instead of the catch-all's "unknown URL", which reads like a wrong path.
 */
export const AdminDisabledLive = HttpRouter.add(
  "*",
  "/admin/*",
  handle(
    Effect.fail(
      GatewayError.notFound(
        "The admin API is disabled. Set GATEWAY_ADMIN_TOKEN to a secret token and restart the gateway to enable it; then send it as 'Authorization: Bearer <token>'.",
        undefined,
        "admin_api_disabled"
      )
    )
  )
)

const consoleDisabled = handle(
  Effect.fail(
    GatewayError.notFound(
      "The console is disabled. Set GATEWAY_ADMIN_TOKEN to a secret token of at least 32 characters (openssl rand -hex 32) and restart the gateway; then open /console and sign in with it.",
      undefined,
      "console_disabled"
    )
  )
)

/** `/console` and everything under it (the router's wildcard covers `/console` itself) while GATEWAY_ADMIN_TOKEN is unset: the same kind of answer as `/admin`. */
export const ConsoleDisabledLive = HttpRouter.add("*", "/console/*", consoleDisabled)
