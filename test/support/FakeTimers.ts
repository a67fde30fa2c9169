import { afterAll, beforeAll, vi } from "vitest"

/**
 * Fake timers for the enclosing `describe`, from its first case to its last: the quiet watch's
 * sweep (Http/QuietWatch.ts) is one timer shared by every watch, so its cases share one fake clock.
 */
export const useFakeTimersInBlock = (): void => {
  beforeAll(() => {
    vi.useFakeTimers()
  })
  afterAll(() => {
    vi.useRealTimers()
  })
}
