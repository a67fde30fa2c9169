/**
 * Trimming runs of given characters in one pass. The obvious regular expressions (`/\/+$/`,
 * `/[ \t]+$/gm`) are quadratic in V8: a run of n matching characters not at the end is tried
 * from each of its n starts. These loops read each character once, whatever the input.
 */

const inSet = (chars: string, code: number): boolean => {
  for (let i = 0; i < chars.length; i++) if (chars.charCodeAt(i) === code) return true
  return false
}

/** `text` without the characters of `chars` at its end (`trimEndChars(url, "/")`). */
export const trimEndChars = (text: string, chars: string): string => {
  let end = text.length
  while (end > 0 && inSet(chars, text.charCodeAt(end - 1))) end--
  return end === text.length ? text : text.slice(0, end)
}

/** `text` without the characters of `chars` at its start. */
export const trimStartChars = (text: string, chars: string): string => {
  let start = 0
  while (start < text.length && inSet(chars, text.charCodeAt(start))) start++
  return start === 0 ? text : text.slice(start)
}

/** Each line of `text` (split at `\n`) without the characters of `chars` at its end. */
export const trimLineEnds = (text: string, chars: string): string => {
  const lines = text.split("\n")
  for (let i = 0; i < lines.length; i++) lines[i] = trimEndChars(lines[i]!, chars)
  return lines.join("\n")
}
