import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Admission } from "../Billing/Admission.ts"
import { ModelCatalog } from "../Catalog/ModelCatalog.ts"
import { GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"
import { UsageLedger } from "../Usage/UsageLedger.ts"
import { RequestObservers } from "../Usage/RequestObserver.ts"
import type { UsageLedgerStats } from "../Usage/UsageLedgerStats.ts"
import type { MetricsRecorder } from "./MetricsRecorder.ts"

/**
 * The Prometheus metrics, when `metrics.enabled` is set; `recorder` is undefined otherwise, so
 * a request pays for nothing but one look-up.
 */
export class GatewayMetrics extends Context.Service<GatewayMetrics, { readonly recorder: MetricsRecorder | undefined }>()(
  "gateway/GatewayMetrics"
) {
  static readonly layer = Layer.effect(
    GatewayMetrics,
    Effect.gen(function* () {
      const { config } = yield* GatewayConfigFile
      if (!config.metrics.enabled) return GatewayMetrics.of({ recorder: undefined })
      const catalog = yield* ModelCatalog
      const ledger = yield* UsageLedger
      const { stats: admissionStats } = yield* Admission
      // The ledger's counters are plain fields read synchronously at scrape time.
      let stats: UsageLedgerStats | undefined
      const readStats = () => {
        stats = Effect.runSync(ledger.stats)
        return stats
      }
      // prom-client is loaded only when metrics are on: a gateway without them never pays its memory.
      const { MetricsRecorder } = yield* Effect.promise(() => import("./MetricsRecorder.ts"))
      const recorder = new MetricsRecorder(catalog.list.map((m) => m.id), readStats, () => admissionStats)
      return GatewayMetrics.of({ recorder })
    })
  )
  /** The metrics, and their recorder as the observer of every request (Usage knows it by that shape only). */
  static readonly layerObserving = Layer.effect(
    RequestObservers,
    Effect.gen(function* () {
      return RequestObservers.of({ observer: (yield* GatewayMetrics).recorder })
    })
  ).pipe(Layer.provideMerge(GatewayMetrics.layer))
}
