import type { UsageAttempt } from "../../Domain/UsageEvent.ts"

export type AttemptOutcome = "ok" | "retried" | "fallback" | "error" | "cancelled" | "cooled_down"

/**
 * What became of each provider call of a request: a failed call followed by another on the same
 * provider and model was retried, one followed by another route fell back, the last failed one
 * is an error. Each route the plan found cooling down (its circuit open: it goes last, tried
 * only when every healthy route failed) counts once as cooled down.
 */
export const attemptOutcomes = (
  attempts: ReadonlyArray<UsageAttempt>,
  cooledDown: ReadonlyArray<string>
): ReadonlyArray<readonly [provider: string, outcome: AttemptOutcome]> => {
  const outcomes: Array<readonly [string, AttemptOutcome]> = attempts.map((a, i) => {
    if (a.outcome !== "error") return [a.provider, a.outcome] as const
    const next = attempts[i + 1]
    if (next === undefined) return [a.provider, "error"] as const
    return [a.provider, next.provider === a.provider && next.model === a.model ? "retried" : "fallback"] as const
  })
  for (const provider of cooledDown) outcomes.push([provider, "cooled_down"] as const)
  return outcomes
}
