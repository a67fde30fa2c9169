/**
 * The known name a mistyped one most likely meant, for "did you mean" hints in error
 * messages: one that starts with or contains the other (`amount` -> `amount_usd`), else the
 * closest by edit distance when the distance is small for the name's length.
 */

/** Levenshtein distance, two rows. */
export const editDistance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]!
}

export const nearestName = (name: string, known: Iterable<string>): string | undefined => {
  const lower = name.toLowerCase()
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  for (const candidate of known) {
    const other = candidate.toLowerCase()
    if (other === lower) return candidate
    const contained = lower.length >= 3 && (other.startsWith(lower) || lower.startsWith(other) || other.includes(lower))
    const distance = contained ? 0.5 : editDistance(lower, other)
    if (distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  return bestDistance <= Math.max(1, Math.floor(name.length / 3)) ? best : undefined
}

/** ` Did you mean 'x'?` or nothing. */
export const didYouMean = (name: string, known: Iterable<string>): string => {
  const nearest = nearestName(name, known)
  return nearest === undefined ? "" : ` Did you mean '${nearest}'?`
}
