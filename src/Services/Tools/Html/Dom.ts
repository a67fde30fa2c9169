import type * as Linkedom from "linkedom"

/**
 * The part of the DOM the web tools use, typed here because the project compiles without the
 * DOM library (it is a Node service). linkedom implements it: a DOM built from the markup alone,
 * which never runs scripts, loads resources or applies styles.
 */
export interface HtmlNode {
  readonly nodeType: number
  readonly nodeName: string
  readonly textContent: string | null
  readonly childNodes: ArrayLike<HtmlNode>
  readonly parentNode: HtmlNode | null
  cloneNode(deep: boolean): HtmlNode
}

export interface HtmlElement extends HtmlNode {
  readonly tagName: string
  readonly children: ArrayLike<HtmlElement>
  innerHTML: string
  readonly outerHTML: string
  getAttribute(name: string): string | null
  setAttribute(name: string, value: string): void
  removeAttribute(name: string): void
  querySelector(selectors: string): HtmlElement | null
  querySelectorAll(selectors: string): ArrayLike<HtmlElement>
  closest(selectors: string): HtmlElement | null
  remove(): void
}

export interface HtmlDocument extends HtmlNode {
  readonly documentElement: HtmlElement
  readonly head: HtmlElement | null
  readonly body: HtmlElement | null
  readonly title: string
  querySelector(selectors: string): HtmlElement | null
  querySelectorAll(selectors: string): ArrayLike<HtmlElement>
  createElement(tagName: string): HtmlElement
}

export const ELEMENT_NODE = 1
export const TEXT_NODE = 3

let linkedom: typeof Linkedom | undefined

/**
 * Loads the DOM implementation. linkedom holds about 30 MB once imported, so it is loaded by the
 * first tool call that parses a page rather than at start-up (a gateway that never scrapes never
 * pays it); every caller of `parseDocument` awaits this first.
 */
export const domReady = async (): Promise<void> => {
  linkedom ??= await import("linkedom")
}

/** Parses markup into a document (never executed). Markup without `<html>` is wrapped so `body` exists. */
export const parseDocument = (html: string): HtmlDocument => {
  if (linkedom === undefined) throw new Error("parseDocument called before domReady()")
  const wrapped = /<html[\s>]/i.test(html) ? html : `<!doctype html><html><head></head><body>${html}</body></html>`
  return linkedom.parseHTML(wrapped).document as unknown as HtmlDocument
}

export const elements = (list: ArrayLike<HtmlElement>): ReadonlyArray<HtmlElement> => Array.from(list)

/** Elements nested deeper than this are refused: browsers stop nesting at 512, and the readers recurse. */
export const maxNesting = 2_048

/** Whether any node of `root` sits more than `max` levels deep (an explicit stack: no recursion). */
export const nestedDeeperThan = (root: HtmlNode, max: number): boolean => {
  const stack: Array<readonly [HtmlNode, number]> = [[root, 0]]
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [node, depth] = next
    if (depth > max) return true
    const children = node.childNodes
    for (let i = 0; i < children.length; i++) stack.push([children[i]!, depth + 1])
  }
  return false
}
