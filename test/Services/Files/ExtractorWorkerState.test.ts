import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { GatewayConfig } from "../../../src/Domain/GatewayConfig.ts"
import { workerJob } from "../../../src/Services/Files/Extraction/WorkerJob.ts"
import { Extractor } from "../../../src/Services/Files/Extractor.ts"
import { GatewayConfigFile } from "../../../src/Services/Config/GatewayConfigLoader.ts"

const config = Schema.decodeUnknownSync(GatewayConfig)({ files: { extraction: { workers: 1 } } })
const ExtractorTest = Extractor.layerWithoutCache.pipe(Layer.provide(GatewayConfigFile.fromConfig(config)))

interface WorkerState {
  readonly envKeys: number
  readonly prototypeWritable: boolean
  readonly inherited: boolean
  readonly parsedOwnProto: boolean
  readonly ownToString: string
}
const stateJob = workerJob<undefined, WorkerState>(new URL("./Extraction/WorkerStateJob.ts", import.meta.url), "state")

layer(ExtractorTest, { excludeTestServices: true })("extraction workers", (it) => {
  it.effect("start with an empty environment and a frozen Object.prototype that ordinary code still lives with", () =>
    Effect.gen(function* () {
      process.env["GATEWAY_TEST_SECRET"] = "not for workers"
      const state = yield* (yield* Extractor).runJob(stateJob, undefined, { label: "state" })
      expect(state).toEqual({ envKeys: 0, prototypeWritable: false, inherited: false, parsedOwnProto: true, ownToString: "mine" })
    })
  )
})
