/** Trend estimators for RSS sampled over a soak. */
export interface RssSample {
  readonly atS: number
  readonly rssMb: number
}

/**
 * Theil-Sen slope (the median of the slopes between every two samples), MB per minute: a GC
 * dip or spike moves a least-squares fit a lot and this one hardly.
 */
export const theilSenMbPerMin = (points: ReadonlyArray<RssSample>): number => {
  const slopes: Array<number> = []
  for (let i = 0; i < points.length; i++) {
    for (let j = i + 1; j < points.length; j++) {
      const dt = points[j]!.atS - points[i]!.atS
      if (dt > 0) slopes.push((points[j]!.rssMb - points[i]!.rssMb) / dt)
    }
  }
  if (slopes.length === 0) return Number.NaN
  slopes.sort((a, b) => a - b)
  const mid = Math.floor(slopes.length / 2)
  return (slopes.length % 2 === 1 ? slopes[mid]! : (slopes[mid - 1]! + slopes[mid]!) / 2) * 60
}

export const leastSquaresMbPerMin = (points: ReadonlyArray<RssSample>): number => {
  if (points.length < 2) return Number.NaN
  const mx = points.reduce((n, p) => n + p.atS, 0) / points.length
  const my = points.reduce((n, p) => n + p.rssMb, 0) / points.length
  const num = points.reduce((n, p) => n + (p.atS - mx) * (p.rssMb - my), 0)
  const den = points.reduce((n, p) => n + (p.atS - mx) ** 2, 0)
  return (num / den) * 60
}
