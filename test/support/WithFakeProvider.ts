import { afterAll, beforeAll, beforeEach } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { type FakeUpstream, startFakeUpstream } from "./FakeUpstream.ts"

/** A provider adapter built on a fake upstream, and the means to run its calls. */
export interface FakeProvider<P> {
  /** The scripted upstream; its queue and records are cleared before every test. */
  readonly upstream: FakeUpstream
  readonly provider: P
  /** Runs a call of the adapter; rejects with its failure. */
  readonly run: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
  /** Runs a call of the adapter and gives its exit, failures included. */
  readonly exit: <A, E>(effect: Effect.Effect<A, E>) => Promise<Exit.Exit<A, E>>
}

/**
 * The harness of the provider tests, registered on the enclosing `describe`: before its tests a
 * fake upstream starts on loopback and `make(upstreamUrl)` builds the adapter in a scope (its
 * connection pool lives there); after them the scope closes and the upstream stops. The
 * upstream is reset before each test. The returned object's fields are valid inside tests.
 */
export const withFakeProvider = <P, E>(make: (upstreamUrl: string) => Effect.Effect<P, E, Scope.Scope>): FakeProvider<P> => {
  let upstream: FakeUpstream | undefined
  let scope: Scope.Closeable | undefined
  let provider: P | undefined

  beforeAll(async () => {
    upstream = await startFakeUpstream()
    scope = Effect.runSync(Scope.make())
    provider = await Effect.runPromise(Scope.provide(scope)(make(upstream.url)))
  })
  afterAll(async () => {
    if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
    await upstream?.stop()
  })
  beforeEach(() => upstream?.reset())

  const ready = <A>(value: A | undefined, what: string): A => {
    if (value === undefined) throw new Error(`the fake provider's ${what} is used outside a test`)
    return value
  }
  return {
    get upstream() {
      return ready(upstream, "upstream")
    },
    get provider() {
      return ready(provider, "adapter")
    },
    run: (effect) => Effect.runPromise(effect),
    exit: (effect) => Effect.runPromise(Effect.exit(effect))
  }
}
