import { Effect, Layer } from "effect"
import { FileStore } from "../../../../src/Services/Files/FileStore.ts"
import { StoreInspector } from "./FileStoreSupport.ts"
import { fileStoreSuite } from "./FileStoreSuite.ts"

const MemoryInspector = Layer.effect(
  StoreInspector,
  Effect.gen(function* () {
    const store = yield* FileStore
    return StoreInspector.of({
      stagesUploads: false,
      traces: (key) => store.exists(key).pipe(Effect.orDie, Effect.map((exists) => (exists ? [key] : [])))
    })
  })
)

fileStoreSuite("FileStore.layerMemory", MemoryInspector.pipe(Layer.provideMerge(FileStore.layerMemory)))
