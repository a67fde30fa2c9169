import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { GatewayConfig } from "../../../src/Domain/GatewayConfig.ts"
import { Extractor } from "../../../src/Services/Files/Extractor.ts"
import { detectInPlaceBytes } from "../../../src/Services/Files/Extraction/DetectJob.ts"
import { GatewayConfigFile } from "../../../src/Services/Config/GatewayConfigLoader.ts"

const config = Schema.decodeUnknownSync(GatewayConfig)({ files: { extraction: { workers: 1 } } })
const ExtractorTest = Extractor.layerWithoutCache.pipe(Layer.provide(GatewayConfigFile.fromConfig(config)))

layer(ExtractorTest, { excludeTestServices: true })("Extractor, large documents", (it) => {
  it.effect("a text file over the in-place limit is told from binary in a worker, and read whole", () =>
    Effect.gen(function* () {
      const extractor = yield* Extractor
      const line = "Große Zeile mit Text, die sich wiederholt.\n"
      const text = line.repeat(Math.ceil((2 * detectInPlaceBytes) / line.length))
      const before = (yield* extractor.workers).tasks
      const doc = yield* extractor.extract({ bytes: new TextEncoder().encode(text), filename: "big.md" })
      expect(doc.format).toBe("text")
      expect(doc.mimeType).toBe("text/markdown")
      expect(doc.text).toBe(text)
      expect((yield* extractor.workers).tasks).toBe(before + 1)
    })
  )

  it.effect("a large binary file that is no document is refused from the worker's detection", () =>
    Effect.gen(function* () {
      const extractor = yield* Extractor
      const bytes = new Uint8Array(2 * detectInPlaceBytes).map((_, i) => (i * 7919) % 256)
      const error = yield* Effect.flip(extractor.extract({ bytes, filename: "noise.md" }))
      expect(error.reason._tag).toBe("InvalidRequest")
      expect(error.message).toMatch(/binary data, not text/)
    })
  )
})
