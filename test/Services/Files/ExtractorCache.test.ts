import { expect, layer } from "@effect/vitest"
import { createHash } from "node:crypto"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { Extractor } from "../../../src/Services/Files/Extractor.ts"
import { expectRejection } from "./Extraction/ExpectRejection.ts"
import { ExtractorWithStorage } from "./Extraction/ExtractorWithStorage.ts"
import { fixture, fixtureBytes, fixtureName } from "./Extraction/FixtureManifest.ts"

const digest = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest()

const cacheRows = (bytes: Uint8Array) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* sql<{ readonly reader: string; readonly outcome: string; readonly extractor_version: number }>`SELECT reader,
      outcome, extractor_version FROM extraction_cache WHERE sha256 = ${digest(bytes)}`
  }).pipe(Effect.orDie)

layer(ExtractorWithStorage(), { excludeTestServices: true, timeout: "60 seconds" })("Extractor cache", (it) => {
  it.effect("serves the second extraction of the same bytes from the database, under any name", () =>
    Effect.gen(function* () {
      const extractor = yield* Extractor
      const entry = fixture("documents/multipage.pdf")
      const bytes = fixtureBytes(entry)
      const first = yield* extractor.extract({ bytes, filename: fixtureName(entry) })
      const tasksAfterFirst = (yield* extractor.workers).tasks
      const second = yield* extractor.extract({ bytes, filename: "renamed.pdf" })
      expect(first.cached).toBe(false)
      expect(second.cached).toBe(true)
      expect({ ...second, cached: false }).toEqual(first)
      expect((yield* extractor.workers).tasks).toBe(tasksAfterFirst)
      expect(yield* cacheRows(bytes)).toEqual([{ reader: "pdf", outcome: "extracted", extractor_version: 1 }])
    })
  )

  it.effect("remembers that a file is damaged, so it is not parsed again", () =>
    Effect.gen(function* () {
      const extractor = yield* Extractor
      const bytes = fixtureBytes("bad/garbage.pdf")
      const extract = extractor.extract({ bytes, filename: "garbage.pdf" })
      const first = yield* expectRejection(extract, "garbage.pdf", "file_corrupt")
      const tasks = (yield* extractor.workers).tasks
      const second = yield* expectRejection(extractor.extract({ bytes, filename: "other.pdf" }), "other.pdf", "file_corrupt")
      expect(second.replace("other.pdf", "garbage.pdf")).toBe(first)
      expect((yield* extractor.workers).tasks).toBe(tasks)
      expect(yield* cacheRows(bytes)).toEqual([{ reader: "pdf", outcome: "failed", extractor_version: 1 }])
    })
  )

  it.effect("re-extracts a row written by an older extractor and replaces it", () =>
    Effect.gen(function* () {
      const extractor = yield* Extractor
      const sql = yield* SqlClient.SqlClient
      const bytes = fixtureBytes("documents/sheet.xlsx")
      yield* extractor.extract({ bytes, filename: "sheet.xlsx" })
      yield* sql`UPDATE extraction_cache SET extractor_version = 0 WHERE sha256 = ${digest(bytes)}`.pipe(Effect.orDie)
      const again = yield* extractor.extract({ bytes, filename: "sheet.xlsx" })
      expect(again.cached).toBe(false)
      expect(yield* cacheRows(bytes)).toEqual([{ reader: "xlsx", outcome: "extracted", extractor_version: 1 }])
      expect((yield* extractor.extract({ bytes, filename: "sheet.xlsx" })).cached).toBe(true)
    })
  )

  it.effect("keeps no rows for text files or for verdicts that depend on the name", () =>
    Effect.gen(function* () {
      const extractor = yield* Extractor
      const notes = fixtureBytes("documents/notes.txt")
      const png = fixtureBytes("bad/png-as.pdf")
      expect((yield* extractor.extract({ bytes: notes, filename: "notes.txt" })).cached).toBe(false)
      expect((yield* extractor.extract({ bytes: notes, filename: "notes.txt" })).cached).toBe(false)
      yield* expectRejection(extractor.extract({ bytes: png, filename: "png-as.pdf" }), "png-as.pdf", "file_type_mismatch")
      expect(yield* cacheRows(notes)).toEqual([])
      expect(yield* cacheRows(png)).toEqual([])
    })
  )
})
