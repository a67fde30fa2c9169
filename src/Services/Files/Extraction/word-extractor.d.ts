/** The part of word-extractor 1.0 (it ships no types) that the DOC reader uses. */
declare module "word-extractor" {
  interface TextOptions {
    /** Default true: replaces typographic quotes and dashes with ASCII ones. */
    readonly filterUnicode?: boolean
  }
  interface WordDocument {
    getBody(options?: TextOptions): string
    getFootnotes(options?: TextOptions): string
    getEndnotes(options?: TextOptions): string
    getHeaders(options?: TextOptions & { readonly includeFooters?: boolean }): string
    getAnnotations(options?: TextOptions): string
    getTextboxes(options?: TextOptions & { readonly includeHeadersAndFooters?: boolean; readonly includeBody?: boolean }): string
  }
  export default class WordExtractor {
    extract(source: string | Buffer): Promise<WordDocument>
  }
}
