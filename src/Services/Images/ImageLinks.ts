import { randomBytes } from "node:crypto"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as SqlClient from "effect/sql/SqlClient"
import { GatewayError } from "../../Domain/GatewayError.ts"
import * as Ids from "../../Domain/Ids.ts"
import { extensionOf, type ImageMime, mimeOfExtension } from "../../Domain/ImageBytes.ts"
import { GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"
import { FileStore } from "../Files/FileStore.ts"
import { makeLinkSigner } from "./LinkSigner.ts"

export interface LinkedImage {
  readonly bytes: Uint8Array
  readonly mimeType: ImageMime
}

export interface OpenedImage {
  readonly contentType: string
  readonly bytes: number
  /** Seconds the link has left. */
  readonly secondsLeft: number
  readonly stream: Stream.Stream<Uint8Array, GatewayError>
}

/** The path every image link starts with, under the gateway's public base URL. */
export const imageLinkPath = "/v1/images/generated"

const namePattern = /^(img_[A-Za-z0-9_-]{8,64})\.(png|jpg|webp)$/

// Every way a link can be wrong answers the same, so a guess learns nothing.
const gone = () => GatewayError.notFound("This image link is unknown or has expired.", undefined, "image_not_found")

/**
 * `response_format: url`: the gateway keeps the bytes in the FileStore under the key's project and
 * hands out a link under its own public base URL that works without a key until it expires
 * (`images.url_ttl_seconds`). Links are signed (`LinkSigner`) with `images.url_secret`; a row per
 * image records when its bytes go, and a sweeper deletes expired rows and bytes.
 */
export class ImageLinks extends Context.Service<
  ImageLinks,
  {
    /** Stores the images for the project; one link each, in order, under `baseUrl`. */
    readonly publish: (projectId: string, images: ReadonlyArray<LinkedImage>, baseUrl: string) => Effect.Effect<ReadonlyArray<string>>
    /** The image a link names; 404 for a forged, expired or swept link. */
    readonly open: (name: string, expires: string | undefined, signature: string | undefined) => Effect.Effect<OpenedImage, GatewayError>
    /** Deletes expired images (rows and bytes); safe on several instances at once. */
    readonly sweep: Effect.Effect<number>
  }
>()("gateway/ImageLinks") {
  static readonly layer = Layer.effect(
    ImageLinks,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const store = yield* FileStore
      const { config } = yield* GatewayConfigFile
      const settings = config.images
      if (settings.url_secret === undefined && config.models.some((m) => m.kind === "image")) {
        yield* Effect.logWarning(
          "images.url_secret is not set: image links are signed with a key of this process and work only on this instance until it restarts"
        )
      }
      const signer = makeLinkSigner(settings.url_secret === undefined ? randomBytes(32) : Redacted.value(settings.url_secret))
      const nowSeconds = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

      const publishOne = (projectId: string, image: LinkedImage, baseUrl: string, created: number) =>
        Effect.gen(function* () {
          const id = Ids.imageId()
          const name = `${id}.${extensionOf(image.mimeType)}`
          const key = `${projectId}/images/${name}`
          const expires = created + settings.url_ttl_seconds
          // The row first: bytes whose row was never written could never be swept.
          yield* sql`INSERT INTO generated_images (id, project_id, storage_key, content_type, bytes, created_at, expires_at)
            VALUES (${id}, ${projectId}, ${key}, ${image.mimeType}, ${image.bytes.length}, ${new Date(created * 1000)}, ${new Date(expires * 1000)})`
          yield* store.put(key, Stream.make(image.bytes), { maxBytes: image.bytes.length + 1, contentType: image.mimeType })
          return `${baseUrl}${imageLinkPath}/${name}?expires=${expires}&signature=${signer.sign(name, expires)}`
        })

      const publish = Effect.fn("ImageLinks.publish")(function* (projectId: string, images: ReadonlyArray<LinkedImage>, baseUrl: string) {
        const created = yield* nowSeconds
        // Storage failures are defects (the FileStore's contract): the client sees a 500.
        return yield* Effect.forEach(images, (image) => publishOne(projectId, image, baseUrl, created), { concurrency: 4 }).pipe(Effect.orDie)
      })

      const open = Effect.fn("ImageLinks.open")(function* (name: string, expires: string | undefined, signature: string | undefined) {
        const match = namePattern.exec(name)
        if (match === null || expires === undefined || signature === undefined || !/^\d{1,12}$/.test(expires)) return yield* gone()
        const until = Number(expires)
        if (!signer.verify(name, until, signature)) return yield* gone()
        const now = yield* nowSeconds
        if (now >= until) return yield* gone()
        const rows = yield* sql<{ storage_key: string; content_type: string }>`SELECT storage_key, content_type FROM generated_images
          WHERE id = ${match[1]!} AND expires_at > ${new Date(now * 1000)}`.pipe(Effect.orDie)
        const row = rows[0]
        if (row === undefined) return yield* gone()
        const stored = yield* store.get(row.storage_key).pipe(Effect.mapError(gone))
        return {
          contentType: mimeOfExtension(match[2]!) ?? row.content_type,
          bytes: stored.bytes,
          secondsLeft: until - now,
          stream: stored.stream
        } satisfies OpenedImage
      })

      const sweep = Effect.gen(function* () {
        const now = new Date((yield* nowSeconds) * 1000)
        // SKIP LOCKED lets several instances sweep at once without deleting an image twice.
        const expired = yield* sql<{ storage_key: string }>`DELETE FROM generated_images WHERE id IN (
            SELECT id FROM generated_images WHERE expires_at <= ${now}
            ORDER BY expires_at LIMIT 500 FOR UPDATE SKIP LOCKED)
          RETURNING storage_key`
        for (const row of expired) yield* store.delete(row.storage_key).pipe(Effect.ignore)
        return expired.length
      }).pipe(
        Effect.catchCause((cause) => Effect.as(Effect.logWarning("image link sweep failed", cause), 0)),
        Effect.withSpan("ImageLinks.sweep")
      )

      yield* Effect.forkScoped(
        Effect.repeat(Effect.andThen(Effect.sleep(`${settings.sweep_interval_seconds} seconds`), sweep), { while: () => true })
      )

      return ImageLinks.of({ publish, open, sweep })
    })
  )
}
