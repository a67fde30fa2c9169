import { readFileSync } from "node:fs"
import * as NodePath from "node:path"
import { Schema } from "effect"

/** The fixture corpus in `test/fixtures`, decoded from its manifest (only the fields the extractor tests use). */
import { fixturesDir } from "../../../support/Fixtures.ts"

export { fixturesDir }

const Tokens = Schema.Array(Schema.String)
const PageTokens = Schema.Record(Schema.String, Tokens)

export const FixtureEntry = Schema.Struct({
  path: Schema.String,
  category: Schema.Literals(["document", "audio", "video", "image", "bad"]),
  format: Schema.String,
  mime: Schema.String,
  size_bytes: Schema.Int,
  expected_tokens: Schema.optionalKey(Tokens),
  pages: Schema.optionalKey(Schema.Int),
  page_tokens: Schema.optionalKey(PageTokens),
  ocr_page_tokens: Schema.optionalKey(PageTokens),
  image_only_pages: Schema.optionalKey(Schema.Array(Schema.Int)),
  slides: Schema.optionalKey(Schema.Int),
  slide_titles: Schema.optionalKey(Tokens),
  slide_tokens: Schema.optionalKey(PageTokens),
  sheets: Schema.optionalKey(Tokens),
  cells: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  expected_error: Schema.optionalKey(Schema.Literals(["corrupt", "unsupported", "empty", "mismatch"])),
  lenient_reader_recovers_text: Schema.optionalKey(Schema.Boolean),
  recoverable_tokens: Schema.optionalKey(Tokens)
})
export type FixtureEntry = typeof FixtureEntry.Type

const Manifest = Schema.Struct({ files: Schema.Array(FixtureEntry) })

export const manifest = Schema.decodeUnknownSync(Schema.fromJsonString(Manifest))(
  readFileSync(NodePath.join(fixturesDir, "manifest.json"), "utf8")
)

export const fixtureBytes = (entry: FixtureEntry | string): Uint8Array =>
  new Uint8Array(readFileSync(NodePath.join(fixturesDir, typeof entry === "string" ? entry : entry.path)))

export const fixtureName = (entry: FixtureEntry | string): string =>
  NodePath.basename(typeof entry === "string" ? entry : entry.path)

export const fixture = (path: string): FixtureEntry => {
  const entry = manifest.files.find((f) => f.path === path)
  if (entry === undefined) throw new Error(`fixture ${path} is not in the manifest`)
  return entry
}

/** Token comparison as the corpus prescribes: whitespace runs collapsed to one space. */
export const collapse = (text: string): string => text.replace(/\s+/g, " ").trim()

/** The code the extractor gives each manifest error class. */
export const codeForClass = {
  corrupt: "file_corrupt",
  unsupported: "file_unsupported",
  empty: "file_empty",
  mismatch: "file_type_mismatch"
} as const
