import * as Effect from "effect/Effect"

/**
 * `load` then `apply`, for loads that may overlap (a periodic reload and one a notice asked
 * for): results are applied in the order the loads started, so a load that started earlier,
 * and may have read the state before a change, never replaces what a later one applied.
 */
export const inStartOrder = <A, E, R>(load: Effect.Effect<A, E, R>, apply: (loaded: A) => void): Effect.Effect<void, E, R> => {
  let started = 0
  let applied = 0
  return Effect.suspend(() => {
    const mine = ++started
    return Effect.map(load, (loaded) => {
      if (mine < applied) return
      applied = mine
      apply(loaded)
    })
  })
}
