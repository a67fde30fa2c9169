import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { FileStore } from "../../../../src/Services/Files/FileStore.ts"
import { AppConfig } from "../../../../src/Services/Config/AppConfig.ts"
import { decodeConfig, GatewayConfigFile } from "../../../../src/Services/Config/GatewayConfigLoader.ts"
import { LocalS3Server } from "../../../support/LocalS3.ts"
import { generated, uniqueKey } from "./FileStoreSupport.ts"

/** FileStore.layer on a gateway.yaml given as an object, with DATA_DIR `dataDir`. */
const fromYaml = (raw: unknown, dataDir: string) =>
  Layer.unwrap(
    Effect.map(decodeConfig("gateway.yaml", raw, {}), (config) =>
      FileStore.layer.pipe(
        Layer.provide(GatewayConfigFile.fromConfig(config, "gateway.yaml")),
        // Everything but DATA_DIR at its default, read the way the gateway reads its environment.
        Layer.provide(AppConfig.layer.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ DATA_DIR: dataDir })))))
      )
    )
  )

const putOne = Effect.gen(function* () {
  const store = yield* FileStore
  const key = uniqueKey("configured")
  yield* store.put(key, generated(100, 1).stream, { maxBytes: 100, contentType: "text/plain" })
  return key
})

const withTempDir = <A, E>(use: (dir: string) => Effect.Effect<A, E>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => mkdtempSync(NodePath.join(tmpdir(), "gw-data-"))),
    use,
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )

describe("FileStore.layer", () => {
  it.live("defaults to a disk store in DATA_DIR/files", () =>
    withTempDir((dataDir) =>
      Effect.gen(function* () {
        const key = yield* Effect.provide(putOne, fromYaml({}, dataDir))
        assert.isTrue(existsSync(NodePath.join(dataDir, "files", key)))
      })
    )
  )

  it.live("uses files.directory when given", () =>
    withTempDir((dataDir) =>
      Effect.gen(function* () {
        const directory = NodePath.join(dataDir, "elsewhere")
        const key = yield* Effect.provide(putOne, fromYaml({ files: { store: "disk", directory } }, dataDir))
        assert.isTrue(existsSync(NodePath.join(directory, key)))
        assert.isFalse(existsSync(NodePath.join(dataDir, "files")))
      })
    )
  )

  it.live("stops start-up with one readable line when store is s3 without an s3 section", () =>
    withTempDir((dataDir) =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(Effect.provide(putOne, fromYaml({ files: { store: "s3" } }, dataDir)))
        assert.strictEqual(error._tag, "ConfigLoadError")
        assert.strictEqual(error.message.split(": ").slice(0, 2).join(": "), "gateway.yaml: files.s3")
        assert.include(error.message, "files.store is s3")
      })
    )
  )

  it.live("uses the s3 section when store is s3", () =>
    withTempDir((dataDir) =>
      Effect.gen(function* () {
        const server = yield* LocalS3Server
        const raw = {
          files: {
            store: "s3",
            s3: {
              endpoint: server.endpoint,
              bucket: server.bucket,
              access_key_id: "S3RVER",
              secret_access_key: "S3RVER",
              prefix: "from-config/"
            }
          }
        }
        const key = yield* Effect.provide(putOne, fromYaml(raw, dataDir))
        const listed = yield* Effect.promise(async () => {
          const client = new S3Client({
            endpoint: server.endpoint,
            region: "us-east-1",
            forcePathStyle: true,
            credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" }
          })
          try {
            return await client.send(new ListObjectsV2Command({ Bucket: server.bucket, Prefix: "from-config/" }))
          } finally {
            client.destroy()
          }
        })
        assert.deepStrictEqual(
          (listed.Contents ?? []).map((o) => o.Key),
          [`from-config/${key}`]
        )
        assert.isFalse(existsSync(NodePath.join(dataDir, "files")))
      }).pipe(Effect.provide(LocalS3Server.layer))
    )
  )
})
