import * as Effect from "effect/Effect"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { decisionWorstCase } from "../Domain/AdmissionCost.ts"
import { decodeDecisionRequest } from "../Domain/DecisionRequest.ts"
import { Decisions } from "../Services/Decisions/Decisions.ts"
import { meteredEndpoint } from "./MeteredEndpoint.ts"
import { route } from "./Route.ts"
import { routeHeaders } from "./RouteHeaders.ts"

const decisions = meteredEndpoint("decisions", "decisions", decodeDecisionRequest, (request, meter) =>
  Effect.flatMap(Effect.service(Decisions), (service) => service.run(request, meter)).pipe(
    Effect.map((body) => HttpServerResponse.jsonUnsafe(body, { headers: routeHeaders(meter) }))
  ), decisionWorstCase)

export const decisionsRoutes = [route("POST", "/v1/decisions", decisions)]
