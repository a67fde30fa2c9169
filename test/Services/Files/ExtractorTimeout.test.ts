import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { Extractor } from "../../../src/Services/Files/Extractor.ts"
import { expectRejection } from "./Extraction/ExpectRejection.ts"
import { ExtractorWithStorage } from "./Extraction/ExtractorWithStorage.ts"
import { collapse, fixture, fixtureBytes, fixtureName } from "./Extraction/FixtureManifest.ts"

// One millisecond is less than any worker needs to even start, so every task overruns.
layer(ExtractorWithStorage({ timeout_ms: 1, workers: 1 }), { excludeTestServices: true, timeout: "60 seconds" })(
  "Extractor time bound",
  (it) => {
    it.effect("terminates a worker that overruns and answers 400, caching nothing", () =>
      Effect.gen(function* () {
        const extractor = yield* Extractor
        const sql = yield* SqlClient.SqlClient
        const entry = fixture("documents/report.pdf")
        const message = yield* expectRejection(
          extractor.extract({ bytes: fixtureBytes(entry), filename: fixtureName(entry) }),
          fixtureName(entry),
          "file_extraction_timeout"
        )
        expect(message).toMatch(/took too long/)
        expect(yield* extractor.workers).toEqual({ tasks: 1, live: 0, idle: 0, terminated: 1 })
        const rows = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM extraction_cache`.pipe(Effect.orDie)
        expect(rows[0]?.n).toBe(0)
      })
    )

    it.effect("keeps serving after a termination: the next task gets a new worker", () =>
      Effect.gen(function* () {
        const extractor = yield* Extractor
        const before = yield* extractor.workers
        yield* expectRejection(
          extractor.renderPdfPages({ bytes: fixtureBytes("documents/multipage.pdf"), filename: "multipage.pdf", maxPages: 1 }),
          "multipage.pdf",
          "file_extraction_timeout"
        )
        const after = yield* extractor.workers
        expect(after.terminated).toBe(before.terminated + 1)
        expect(after.live).toBe(0)
      })
    )

    it.effect("still reads text files, which never leave the request thread", () =>
      Effect.gen(function* () {
        const entry = fixture("documents/notes.txt")
        const doc = yield* (yield* Extractor).extract({ bytes: fixtureBytes(entry), filename: fixtureName(entry) })
        for (const token of entry.expected_tokens ?? []) expect(collapse(doc.text)).toContain(token)
      })
    )
  }
)
