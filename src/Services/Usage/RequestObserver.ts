import * as Context from "effect/Context"
import type { UsageEvent } from "../../Domain/UsageEvent.ts"

/** A request still being served, as an observer sees it. */
export interface LiveRequest {
  readonly streamed: boolean
  readonly log: { readonly cooledDown: ReadonlyArray<string> }
}

/**
 * Who watches requests start and end besides the ledger (the Prometheus metrics, when they are
 * on). Usage knows its observers only by this shape, so it imports nothing of theirs; each call
 * must not throw, since it runs in the meter's finalizer before the usage row is recorded.
 */
export interface RequestObserver {
  readonly started: (request: LiveRequest) => void
  readonly ended: (request: LiveRequest, event: UsageEvent, projectId: string) => void
}

/** The observer of every request, if any; absent (or `observer` undefined) costs a request one look-up. */
export class RequestObservers extends Context.Service<RequestObservers, { readonly observer: RequestObserver | undefined }>()(
  "gateway/RequestObservers"
) {}
