import type { WindowState } from "./SlidingWindows.ts"

/** A duration as OpenAI writes its reset headers: `20ms`, `1.5s`, `6m0s`. */
export const formatReset = (ms: number): string => {
  const whole = Math.max(0, Math.ceil(ms))
  if (whole < 1000) return `${whole}ms`
  const minutes = Math.floor(whole / 60_000)
  const seconds = Number(((whole % 60_000) / 1000).toFixed(3))
  return minutes === 0 ? `${seconds}s` : `${minutes}m${seconds}s`
}

const tightest = (states: ReadonlyArray<WindowState>): WindowState | undefined => {
  let best: WindowState | undefined
  for (const state of states) if (best === undefined || state.remaining < best.remaining) best = state
  return best
}

/**
 * `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` from the windows a request was
 * charged against: for each unit, the window with the least left (the one that refuses first).
 */
export const rateLimitHeaders = (states: ReadonlyArray<WindowState>): Record<string, string> => {
  const headers: Record<string, string> = {}
  const requests = tightest(states.filter((s) => s.id.endsWith(":r")))
  const tokens = tightest(states.filter((s) => s.id.endsWith(":t")))
  if (requests !== undefined) {
    headers["x-ratelimit-limit-requests"] = String(requests.limit)
    headers["x-ratelimit-remaining-requests"] = String(requests.remaining)
    headers["x-ratelimit-reset-requests"] = formatReset(requests.resetMs)
  }
  if (tokens !== undefined) {
    headers["x-ratelimit-limit-tokens"] = String(tokens.limit)
    headers["x-ratelimit-remaining-tokens"] = String(tokens.remaining)
    headers["x-ratelimit-reset-tokens"] = formatReset(tokens.resetMs)
  }
  return headers
}
