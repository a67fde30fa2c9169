import * as Effect from "effect/Effect"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { embeddingWorstCase } from "../Domain/AdmissionCost.ts"
import { decodeEmbeddingRequest } from "../Domain/EmbeddingRequestDecoder.ts"
import { embeddingsWireJson } from "../Domain/EmbeddingResultWire.ts"
import { Embeddings } from "../Services/Embeddings/Embeddings.ts"
import { meteredEndpoint } from "./MeteredEndpoint.ts"
import { route } from "./Route.ts"
import { routeHeaders } from "./RouteHeaders.ts"

const embeddings = meteredEndpoint("embeddings", "embeddings", decodeEmbeddingRequest, (request, meter) =>
  Effect.flatMap(Effect.service(Embeddings), (service) => service.run(request, meter)).pipe(
    Effect.map((body) => HttpServerResponse.text(embeddingsWireJson(body), { contentType: "application/json", headers: routeHeaders(meter) }))
  ), embeddingWorstCase)

export const embeddingsRoutes = [route("POST", "/v1/embeddings", embeddings)]
