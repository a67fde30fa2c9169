import * as Effect from "effect/Effect"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { embeddingWorstCase } from "../Domain/AdmissionCost.ts"
import { decodeEmbeddingRequest } from "../Domain/EmbeddingRequestDecoder.ts"
import { embeddingsWireJson } from "../Domain/EmbeddingResultWire.ts"
import { Embeddings } from "../Services/Embeddings/Embeddings.ts"
import { answerWith, meteredEndpoint } from "./MeteredEndpoint.ts"
import { route } from "./Route.ts"

const embeddings = meteredEndpoint("embeddings", "embeddings", decodeEmbeddingRequest, (request, log) =>
  Effect.flatMap(Effect.service(Embeddings), (service) => service.run(request, log)).pipe(
    Effect.map(({ body, outcome }) =>
      answerWith(outcome, (headers) => HttpServerResponse.text(embeddingsWireJson(body), { contentType: "application/json", headers })))
  ), embeddingWorstCase)

export const embeddingsRoutes = [route("POST", "/v1/embeddings", embeddings)]
