/**
 * Tags and text of simple generated markup (mammoth's HTML, iWork's XML index), in one pass with
 * `indexOf`. Regular expressions such as `/<[^>]*>/g` are quadratic on a file of many `<` and no
 * `>`: each `<` starts a scan to the end. Here every character is read once.
 */
export type MarkupToken =
  | { readonly _tag: "Text"; readonly text: string }
  | {
    readonly _tag: "Tag"
    /** Lower-cased name, without `/` (`p`, `sf:ct`). */
    readonly name: string
    readonly closing: boolean
    readonly selfClosing: boolean
    /** What stands between `<` and `>`. */
    readonly inside: string
  }

const isNameChar = (c: number): boolean =>
  (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 58 || c === 95 || c === 45 || c === 46

/** Every tag and every run of text between tags, in order. A `<` that is never closed starts text. */
export function* markupTokens(markup: string): Generator<MarkupToken> {
  let at = 0
  while (at < markup.length) {
    const open = markup.indexOf("<", at)
    const close = open === -1 ? -1 : markup.indexOf(">", open + 1)
    if (open === -1 || close === -1) {
      yield { _tag: "Text", text: markup.slice(at) }
      return
    }
    if (open > at) yield { _tag: "Text", text: markup.slice(at, open) }
    const inside = markup.slice(open + 1, close)
    const closing = inside.charCodeAt(0) === 47
    let end = closing ? 1 : 0
    while (end < inside.length && isNameChar(inside.charCodeAt(end))) end++
    yield {
      _tag: "Tag",
      name: inside.slice(closing ? 1 : 0, end).toLowerCase(),
      closing,
      selfClosing: inside.charCodeAt(inside.length - 1) === 47,
      inside
    }
    at = close + 1
  }
}

/** The value of `name="..."` inside a tag, or undefined. */
export const attributeOf = (inside: string, name: string): string | undefined => {
  const key = `${name}="`
  for (let from = 0; ; ) {
    const at = inside.indexOf(key, from)
    if (at === -1) return undefined
    const before = inside.charCodeAt(at - 1)
    if (at > 0 && (before === 32 || before === 9 || before === 10 || before === 13)) {
      const end = inside.indexOf('"', at + key.length)
      return end === -1 ? undefined : inside.slice(at + key.length, end)
    }
    from = at + key.length
  }
}
