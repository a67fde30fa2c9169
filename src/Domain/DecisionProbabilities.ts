/**
 * The arithmetic of `POST /v1/decisions`: label tokens' log-probabilities or sampled labels ->
 * a distribution over the question's outcomes, and what is read off it. Pure; every function
 * takes the labels in outcome order and returns probabilities in that order.
 */
import { trimEndChars, trimStartChars } from "./TrimChars.ts"

/** One candidate token of the answer's first position, as the upstream listed it. */
export interface TopToken {
  readonly token: string
  readonly logprob: number
}

/**
 * How a token or an answer is compared with a label: without surrounding whitespace and
 * case-insensitively, so " A", "A", "a" and "\nYES" are the label they spell. Labels are chosen
 * to differ in this form (A-Z, 0-9, Yes/No).
 */
export const labelKey = (token: string): string => token.trim().toUpperCase()

const logSumExp = (values: ReadonlyArray<number>): number => {
  const top = Math.max(...values)
  if (top === -Infinity) return -Infinity
  let sum = 0
  for (const v of values) sum += Math.exp(v - top)
  return top + Math.log(sum)
}

/** exp(x_i) / sum exp(x), computed without overflow; -Infinity entries get 0. */
const softmax = (logs: ReadonlyArray<number>): Array<number> => {
  const top = Math.max(...logs)
  const weights = logs.map((l) => Math.exp(l - top))
  const total = weights.reduce((a, b) => a + b, 0)
  return weights.map((w) => w / total)
}

/**
 * The distribution over `labels` from the candidate tokens of one position (the top list with
 * the chosen token added), renormalised over the labels.
 *
 * - A token listed twice with the same text is one token: its largest log-probability counts.
 * - Distinct tokens that are the same label (" A" and "A", "Yes" and "yes") are summed: each is
 *   a way of giving that answer.
 * - A label absent from the list has a probability below every listed one, and all absent labels
 *   together have at most the mass the list leaves unexplained. Each gets the floor: half of the
 *   smaller of those two bounds (the middle of what it could be), 0 if the list explains all mass.
 * - NaN entries are ignored; a log-probability above 0 counts as 0.
 *
 * `undefined` when no label is in the list: there is nothing to renormalise, and a uniform
 * answer would be a number the model never gave.
 */
export const distributionFromLogprobs = (labels: ReadonlyArray<string>, tokens: ReadonlyArray<TopToken>): ReadonlyArray<number> | undefined => {
  const byToken = new Map<string, number>()
  for (const { token, logprob } of tokens) {
    if (Number.isNaN(logprob)) continue
    const lp = Math.min(logprob, 0)
    const seen = byToken.get(token)
    if (seen === undefined || lp > seen) byToken.set(token, lp)
  }
  const keys = labels.map(labelKey)
  const variants: Array<Array<number>> = labels.map(() => [])
  let listedMass = 0
  let lowest = 0
  for (const [token, lp] of byToken) {
    if (lp === -Infinity) continue
    listedMass += Math.exp(lp)
    lowest = Math.min(lowest, lp)
    const index = keys.indexOf(labelKey(token))
    if (index >= 0) variants[index]!.push(lp)
  }
  const missing = variants.filter((v) => v.length === 0).length
  if (missing === labels.length) return undefined
  const residual = 1 - listedMass
  const floor = missing === 0 || residual <= 0 ? -Infinity : Math.min(lowest, Math.log(residual / missing)) - Math.LN2
  return softmax(variants.map((v) => (v.length === 0 ? floor : logSumExp(v))))
}

/**
 * Additive smoothing of sampled frequencies: (count + 1/2) / (samples + L/2), the
 * Krichevsky-Trofimov estimate. Eight samples that all say "Yes" give 0.944, not 1: a handful
 * of samples cannot rule an outcome out.
 */
export const sampleSmoothing = 0.5

/** Characters a model may wrap a label in when it writes more than the label ("**A**", "Yes."). */
// What `\s` matches.
const space = " \t\n\r\f\v\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
const openers = `${space}"'\`*_([{<`
const closers = `${space}"'\`*_.,;:!)]}>`

/** The outcome index a sampled answer names, or `undefined` when it is not exactly one label. */
export const labelOfAnswer = (labels: ReadonlyArray<string>, text: string): number | undefined => {
  const key = labelKey(trimEndChars(trimStartChars(text, openers), closers))
  const index = labels.findIndex((label) => labelKey(label) === key)
  return index < 0 ? undefined : index
}

/**
 * The smoothed distribution of sampled answers. Answers that are not a label are left out (and
 * counted by the caller); `undefined` when none is a label.
 */
export const distributionFromSamples = (labels: ReadonlyArray<string>, answers: ReadonlyArray<string>): ReadonlyArray<number> | undefined => {
  const counts = labels.map(() => 0)
  let valid = 0
  for (const answer of answers) {
    const index = labelOfAnswer(labels, answer)
    if (index === undefined) continue
    counts[index]!++
    valid++
  }
  if (valid === 0) return undefined
  const total = valid + sampleSmoothing * labels.length
  return counts.map((c) => (c + sampleSmoothing) / total)
}

/** The most probable outcome; on a tie the first (lowest index). */
export const argmax = (distribution: ReadonlyArray<number>): number => {
  let best = 0
  for (let i = 1; i < distribution.length; i++) if (distribution[i]! > distribution[best]!) best = i
  return best
}

/**
 * 1 - H(p) / ln(L): 1 when all mass is on one outcome, 0 for the uniform distribution over the
 * L outcomes. Clamped to [0, 1] against rounding.
 */
export const confidence = (distribution: ReadonlyArray<number>): number => {
  if (distribution.length < 2) return 1
  let entropy = 0
  for (const p of distribution) if (p > 0) entropy -= p * Math.log(p)
  return Math.min(1, Math.max(0, 1 - entropy / Math.log(distribution.length)))
}

/** The probability-weighted index: sum of i x p_i, index 0 being the first (lowest) level. */
export const expectedIndex = (distribution: ReadonlyArray<number>): number =>
  distribution.reduce((sum, p, i) => sum + i * p, 0)
