import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { ModelConfig } from "../../../src/Domain/GatewayConfig.ts"
import type { ImageProvider } from "../../../src/Providers/ImageProvider.ts"
import { imageRoutes } from "../../../src/Services/Routing/ImageRoutes.ts"

const model = (id: string, image: Record<string, unknown>, fields: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(ModelConfig)({ id, kind: "image", deployments: [{ provider: "openai", model: id }], image, ...fields })
const adapter: ImageProvider = { id: "openai", generate: () => Effect.die("not called") }
const lookup = (id: string) => (id === "openai" ? adapter : undefined)

describe("image routes", () => {
  const wide = model("wide", { aspect_ratios: ["1:1", "16:9"], max_n: 4 })
  const square = model("square", { aspect_ratios: ["1:1"], max_n: 4 })
  const single = model("single", { aspect_ratios: ["1:1", "16:9"] })
  const chat = Schema.decodeUnknownSync(ModelConfig)({ id: "chat", kind: "chat", deployments: [{ provider: "openai", model: "gpt" }] })
  const elsewhere = model("elsewhere", { aspect_ratios: ["1:1", "16:9"], max_n: 4 }, { deployments: [{ provider: "gone", model: "x" }] })
  const primary = model("primary", { aspect_ratios: ["1:1", "16:9"], max_n: 4 }, { fallbacks: ["square", "single", "chat", "elsewhere", "wide"] })
  const find = (id: string) => [wide, square, single, chat, elsewhere].find((m) => m.id === id)

  it("falls back only to image models whose catalogue accepts every option asked, on providers with an image adapter", () => {
    const ids = (ask: Parameters<typeof imageRoutes>[1]) => imageRoutes(primary, ask, find, lookup).map((m) => m.id)
    expect(ids({ n: 2, aspectRatio: "16:9", referenceCount: 0 })).toEqual(["primary", "wide"])
    expect(ids({ n: 1, aspectRatio: "1:1", referenceCount: 0 })).toEqual(["primary", "square", "single", "wide"])
    expect(ids({ n: 1, resolution: "1K", referenceCount: 0 })).toEqual(["primary"])
  })
})
