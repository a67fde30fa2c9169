/**
 * `${VAR}`, `${VAR:-default}` and `$$` in a configuration value, found in one pass. A default
 * runs to the first `}` (it may hold `$` and `{`); where no `}` follows, nothing is a reference.
 * A regular expression for the same language is quadratic on a value of many `${A:-` with no
 * `}` after them: every start scans to the end.
 */
export interface Reference {
  readonly name: string
  readonly fallback: string | undefined
}

const variableName = /[A-Za-z_][A-Za-z0-9_]*/y

/** The reference starting at `at` (a `$`), with where it ends; `lastClose` is the last `}` of `value`. */
const referenceAt = (value: string, at: number, lastClose: number): (Reference & { readonly end: number }) | undefined => {
  if (value.charCodeAt(at + 1) !== 123 /* { */) return undefined
  variableName.lastIndex = at + 2
  const name = variableName.exec(value)?.[0]
  if (name === undefined) return undefined
  const after = at + 2 + name.length
  if (value.charCodeAt(after) === 125 /* } */) return { name, fallback: undefined, end: after + 1 }
  if (!value.startsWith(":-", after) || after + 2 > lastClose) return undefined
  const close = value.indexOf("}", after + 2)
  return { name, fallback: value.slice(after + 2, close), end: close + 1 }
}

/** `value` with each reference replaced by what `replace` gives for it, and each `$$` by `$`. */
export const replaceReferences = (value: string, replace: (reference: Reference) => string): string => {
  const lastClose = value.lastIndexOf("}")
  let out = ""
  let from = 0
  for (let at = value.indexOf("$"); at !== -1; at = value.indexOf("$", at)) {
    if (value.charCodeAt(at + 1) === 36 /* $ */) {
      out += `${value.slice(from, at)}$`
      from = at = at + 2
      continue
    }
    const reference = referenceAt(value, at, lastClose)
    if (reference === undefined) {
      at++
      continue
    }
    out += value.slice(from, at) + replace(reference)
    from = at = reference.end
  }
  return out + value.slice(from)
}

/** The first reference of `value` (`${OPENAI_API_KEY:-}` -> OPENAI_API_KEY), if any. */
export const firstReference = (value: string): Reference | undefined => {
  const lastClose = value.lastIndexOf("}")
  for (let at = value.indexOf("$"); at !== -1; at = value.indexOf("$", at + 1)) {
    const reference = referenceAt(value, at, lastClose)
    if (reference !== undefined) return reference
  }
  return undefined
}
