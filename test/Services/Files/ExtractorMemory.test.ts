import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { GatewayConfig } from "../../../src/Domain/GatewayConfig.ts"
import { minimumHeapMb } from "../../../src/Services/Files/Extraction/WorkerPool.ts"
import { Extractor } from "../../../src/Services/Files/Extractor.ts"
import { GatewayConfigFile } from "../../../src/Services/Config/GatewayConfigLoader.ts"
import { expectRejection } from "./Extraction/ExpectRejection.ts"
import { fixture, fixtureBytes, fixtureName } from "./Extraction/FixtureManifest.ts"

// 1 MB is raised to the floor: enough for a worker to start, far too little to load an Office reader.
const config = Schema.decodeUnknownSync(GatewayConfig)({ files: { extraction: { max_memory_mb: 1, workers: 1 } } })
const TinyHeap = Extractor.layerWithoutCache.pipe(Layer.provide(GatewayConfigFile.fromConfig(config)))

layer(TinyHeap, { excludeTestServices: true })("Extractor memory bound", (it) => {
  it.effect("a worker that runs out of heap is gone and the caller gets a 400, not a crash", () =>
    Effect.gen(function* () {
      const extractor = yield* Extractor
      const entry = fixture("documents/slides.pptx")
      const message = yield* expectRejection(
        extractor.extract({ bytes: fixtureBytes(entry), filename: fixtureName(entry) }),
        fixtureName(entry),
        "file_too_complex"
      )
      expect(message).toContain(`${minimumHeapMb} MB`)
      expect(yield* extractor.workers).toEqual({ tasks: 1, live: 0, idle: 0, terminated: 1 })
    })
  )
})
