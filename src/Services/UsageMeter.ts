import { Clock, Context, Effect, Exit, Scope } from "effect"
import type { Principal } from "../Domain/ApiKey.ts"
import { costNanoUsd } from "../Domain/Pricing.ts"
import type { Usage } from "../Domain/Usage.ts"
import type { UsageEndpoint } from "../Domain/UsageEvent.ts"
import { ModelCatalog } from "./ModelCatalog.ts"
import { AttemptLog, type Served } from "./ProviderRouter.ts"
import { UsageLedger } from "./UsageLedger.ts"

/** What one request accumulates while it runs; written once, when the request's scope closes. */
export class RequestMeter {
  requestedModel: string | null = null
  served: Served | undefined
  usage: Usage | undefined
  units = 0
  /** The status the client saw; a stream that started is 200 even if it later failed. */
  status = 200
  streamed = false
  firstTokenAt: number | undefined
  readonly log = new AttemptLog()
}

/**
 * Opens a meter for the current request. Its finalizer runs when the request scope closes:
 * after a JSON response is sent, after a stream's last byte, or when the client went away, so
 * cancelled and failed requests are billed for what they used too.
 */
export const openMeter = (input: {
  readonly principal: Principal
  readonly endpoint: UsageEndpoint
  readonly requestId: string
}) =>
  Effect.flatMap(Effect.context<UsageLedger | ModelCatalog | Scope.Scope>(), (context) => {
    const ledger = Context.get(context, UsageLedger)
    const catalog = Context.get(context, ModelCatalog)
    const clock = Context.get(context, Clock.Clock)
    const startedAt = clock.currentTimeMillisUnsafe()
    const meter = new RequestMeter()
    // Straight on the scope: `Effect.addFinalizer` would re-provide the whole service context
    // to the finalizer, a copy of every service per request.
    const finalizer = Scope.addFinalizerExit(Context.get(context, Scope.Scope), (exit) => {
      const now = clock.currentTimeMillisUnsafe()
      const usage = meter.usage ?? { promptTokens: 0, completionTokens: 0 }
      const pricing = meter.served === undefined ? undefined : catalog.find(meter.served.model)?.config.pricing
      return ledger.record({
        occurredAt: startedAt,
        requestId: input.requestId,
        projectSeq: input.principal.projectSeq,
        keySeq: input.principal.keySeq,
        endpoint: input.endpoint,
        requestedModel: meter.requestedModel,
        usedModel: meter.served?.model ?? null,
        provider: meter.served?.provider ?? null,
        status: meter.status,
        cancelled: Exit.isFailure(exit) && Exit.hasInterrupts(exit),
        streamed: meter.streamed,
        promptTokens: usage.promptTokens,
        completionTokens: usage.completionTokens,
        cachedTokens: usage.cachedTokens ?? 0,
        cacheWriteTokens: usage.cacheWriteTokens ?? 0,
        units: meter.units,
        latencyMs: now - startedAt,
        ttftMs: meter.firstTokenAt === undefined ? null : meter.firstTokenAt - startedAt,
        attempts: meter.log.attempts,
        costNanoUsd: pricing === undefined ? 0 : costNanoUsd(pricing, usage, meter.units)
      })
    })
    return Effect.as(finalizer, meter)
  })
