import type { Pricing } from "./GatewayConfig.ts"

/**
 * Seconds billed for audio of `durationSeconds`, as measured by the gateway: whole seconds,
 * rounded up (a 3.2 s file is 4 s), at least 1 for any audio. The duration is first rounded to
 * the millisecond so that float noise (3.0000000001) does not add a second.
 */
export const billedSeconds = (durationSeconds: number): number => {
  if (!Number.isFinite(durationSeconds) || durationSeconds <= 0) return 1
  return Math.max(1, Math.ceil(Math.round(durationSeconds * 1000) / 1000))
}

/**
 * The most a speech-to-text call can cost, in integer nano-dollars: the billed seconds times
 * `per_audio_second`, plus `per_request`. The duration is measured before any upstream call,
 * so this bound is also the exact price the usage event records.
 */
export const transcriptionCostNanoUsd = (pricing: Pricing, durationSeconds: number): number =>
  Math.round(billedSeconds(durationSeconds) * (pricing.per_audio_second ?? 0) * 1e9 + (pricing.per_request ?? 0) * 1e9)
