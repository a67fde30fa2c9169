import * as Effect from "effect/Effect"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { decisionWorstCase } from "../Domain/AdmissionCost.ts"
import { decodeDecisionRequest } from "../Domain/DecisionRequest.ts"
import { Decisions } from "../Services/Decisions/Decisions.ts"
import { answerWith, meteredEndpoint } from "./MeteredEndpoint.ts"
import { route } from "./Route.ts"

const decisions = meteredEndpoint("decisions", "decisions", decodeDecisionRequest, (request, log) =>
  Effect.flatMap(Effect.service(Decisions), (service) => service.run(request, log)).pipe(
    Effect.map(({ body, outcome }) => answerWith(outcome, (headers) => HttpServerResponse.jsonUnsafe(body, { headers })))
  ), decisionWorstCase)

export const decisionsRoutes = [route("POST", "/v1/decisions", decisions)]
