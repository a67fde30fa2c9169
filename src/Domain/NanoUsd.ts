/**
 * Money is integer nano-dollars (1e-9 USD) from the price table to the report. Dollars appear only
 * at the edges: prices read from gateway.yaml are converted here, and report figures are formatted
 * from the integer, so float artefacts such as 0.1 + 0.2 = 0.30000000000000004 never arise.
 */

const nanoPerUsd = 1_000_000_000n

/**
 * A dollar amount from configuration as integer nano-dollars, through its decimal text (no float
 * multiplication): 0.15 -> 150000000n. Anything finer than a nano-dollar is rounded half up.
 */
export const nanoFromUsd = (usd: number | undefined): bigint => {
  if (usd === undefined || !Number.isFinite(usd) || usd <= 0) return 0n
  const [whole = "0", fraction = ""] = usd.toFixed(10).split(".")
  const nano = BigInt(whole) * nanoPerUsd + BigInt(fraction.slice(0, 9).padEnd(9, "0"))
  return fraction.charCodeAt(9) >= 53 /* "5" */ ? nano + 1n : nano
}

/** `numerator / denominator` for non-negative integers, rounded half up. */
export const divideRounded = (numerator: bigint, denominator: bigint): bigint => (numerator * 2n + denominator) / (denominator * 2n)

/** Integer nano-dollars as a dollar decimal with `decimals` (0-9) places, rounded half up: 1501000000n -> "1.501000000". */
export const formatNanoUsd = (nano: bigint | number, decimals = 9): string => {
  const places = Math.min(9, Math.max(0, Math.trunc(decimals)))
  const value = typeof nano === "bigint" ? nano : BigInt(Math.round(nano))
  const sign = value < 0n ? "-" : ""
  const scaled = divideRounded(value < 0n ? -value : value, 10n ** BigInt(9 - places))
  const unit = 10n ** BigInt(places)
  const fraction = places === 0 ? "" : `.${(scaled % unit).toString().padStart(places, "0")}`
  return `${sign}${scaled / unit}${fraction}`
}

/** Dollars as a JSON number, parsed from the exact decimal text: the nearest double, no artefacts. */
export const usdFromNano = (nano: bigint | number): number => Number(formatNanoUsd(nano))
