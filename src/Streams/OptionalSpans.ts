import * as Effect from "effect/Effect"
import * as Tracer from "effect/Tracer"

type Wrap = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

/** Spans for the request path that cost nothing when nobody collects them. */
export interface OptionalSpans {
  /** A real tracer (OTLP, or a test's exporter) is installed. */
  readonly enabled: boolean
  /** `Effect.withSpan(name, options)` when a tracer is installed; otherwise the effect as it is. */
  readonly span: (name: string, options?: Tracer.SpanOptions) => Wrap
}

const identity: Wrap = (self) => self
const off: OptionalSpans = { enabled: false, span: () => identity }
const on: OptionalSpans = { enabled: true, span: (name, options) => (self) => Effect.withSpan(self, name, options) }

/**
 * Read once, when a layer is built: every span costs an allocation and a captured stack even
 * with Effect's built-in tracer, which exports nowhere, so the request path skips them then.
 */
export const optionalSpans: Effect.Effect<OptionalSpans> = Effect.map(Tracer.Tracer, (tracer) =>
  tracer === Tracer.nativeTracer ? off : on
)
