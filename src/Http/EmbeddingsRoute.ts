import { Context, Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { decodeEmbeddingRequest } from "../Domain/EmbeddingRequestDecoder.ts"
import { Embeddings } from "../Services/Embeddings.ts"
import { openMeter } from "../Services/UsageMeter.ts"
import { authenticated, CurrentPrincipal } from "./Authentication.ts"
import { statusOf } from "./ErrorResponse.ts"
import { CurrentRequestId } from "./Handler.ts"
import { readJsonObject } from "./JsonBody.ts"
import { route } from "./Route.ts"
import { routeHeaders } from "./RouteHeaders.ts"

// A chain rather than a generator, like the chat route: this runs on every request.
const embeddings = authenticated(
  "embeddings",
  Effect.flatMap(Effect.context<CurrentPrincipal | Embeddings>(), (context) => {
    const principal = Context.get(context, CurrentPrincipal)
    const service = Context.get(context, Embeddings)
    const requestId = Context.get(context, CurrentRequestId)
    return Effect.flatMap(openMeter({ principal, endpoint: "embeddings", requestId }), (meter) =>
      readJsonObject.pipe(
        Effect.flatMap(decodeEmbeddingRequest),
        Effect.flatMap((request) => {
          meter.requestedModel = request.model
          return service.run(request, meter)
        }),
        Effect.map((body) => HttpServerResponse.jsonUnsafe(body, { headers: routeHeaders(meter) })),
        Effect.tapError((error) =>
          Effect.sync(() => {
            meter.status = statusOf(error.reason).status
          })
        )
      ))
  })
)

export const embeddingsRoutes = [route("POST", "/v1/embeddings", embeddings)]
