import * as Context from "effect/Context"

/**
 * When the routing deadline of the request being served runs out, in epoch milliseconds
 * (live clock). Upstream exchanges end themselves then, so the router needs no watcher fiber
 * per request; without one set, only the provider's own timeouts apply.
 */
export const RequestDeadline = Context.Reference<number | undefined>("gateway/RequestDeadline", {
  defaultValue: () => undefined
})
