import { createHash, randomUUID } from "node:crypto"
import { createWriteStream, mkdtempSync } from "node:fs"
import * as Fs from "node:fs/promises"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import * as NodePath from "node:path"
import { Readable, Transform } from "node:stream"
import { pipeline } from "node:stream/promises"
import { Context, Effect, Layer, Redacted } from "effect"
import type { S3Settings } from "../../src/Domain/GatewayConfig.ts"

/**
 * A local S3-compatible server for tests: s3rver on an ephemeral loopback port, storing in a
 * temporary directory. Two gaps of s3rver 3.7 are filled here, everything else is s3rver itself:
 * - it does not implement AbortMultipartUpload, ListMultipartUploads or If-Match on GetObject,
 *   so a small middleware in front of it answers those three from s3rver's on-disk layout;
 * - its object writes answer before the bytes are on disk and write in place, so a read right
 *   after a PUT can see an empty object and concurrent writers interleave. Real S3 replaces an
 *   object atomically, so the store's `putObject` is replaced by one that writes a temporary
 *   file and renames it.
 */

interface KoaContext {
  readonly method: string
  readonly path: string
  readonly query: Record<string, unknown>
  readonly get: (header: string) => string
  status: number
  type: string
  body: unknown
}
type Middleware = (ctx: KoaContext, next: () => Promise<void>) => Promise<void>
interface StoredObject {
  readonly bucket: string
  readonly key: string
  readonly content: Buffer | Readable
  readonly metadata: unknown
}
interface FilesystemStore {
  getResourcePath(bucket: string, key: string | undefined, resource: string): string
  putMetadata(bucket: string, key: string, metadata: unknown, md5: string): Promise<void>
  putObject: (object: StoredObject) => Promise<{ size: number; md5: string }>
}
interface S3rverInstance {
  readonly middleware: Array<Middleware>
  readonly store: FilesystemStore
  run(): Promise<{ readonly port: number }>
  close(): Promise<void>
}
type S3rverConstructor = new (options: {
  port: number
  address: string
  silent: boolean
  directory: string
  configureBuckets: ReadonlyArray<{ name: string }>
}) => S3rverInstance

const S3rver = createRequire(import.meta.url)("s3rver") as S3rverConstructor

export interface LocalS3 {
  readonly endpoint: string
  readonly bucket: string
  /** One line per request the server answered: `METHOD /bucket/key ?subresource`. */
  readonly requests: Array<string>
  readonly settings: (overrides?: Partial<S3Settings>) => S3Settings
}

const xmlEscape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

const s3Error = (ctx: KoaContext, status: number, code: string, message: string) => {
  ctx.status = status
  ctx.type = "application/xml"
  ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`
}

const missingCalls = (server: S3rverInstance, requests: Array<string>): Middleware => async (ctx, next) => {
  const [, bucket, rawKey] = /^\/([^/]+)(?:\/(.*))?$/.exec(ctx.path) ?? []
  const key = rawKey === undefined || rawKey === "" ? undefined : decodeURIComponent(rawKey)
  const sub = ["uploadId", "uploads", "partNumber"].filter((name) => name in ctx.query).join("&")
  requests.push(`${ctx.method} ${ctx.path}${sub === "" ? "" : ` ?${sub}`}`)
  if (bucket === undefined) return next()
  const uploads = server.store.getResourcePath(bucket, undefined, "uploads")

  if (ctx.method === "DELETE" && key !== undefined && typeof ctx.query["uploadId"] === "string") {
    const dir = NodePath.join(uploads, NodePath.basename(ctx.query["uploadId"]))
    const exists = await Fs.stat(dir).then(() => true, () => false)
    if (!exists) return s3Error(ctx, 404, "NoSuchUpload", "The specified upload does not exist.")
    await Fs.rm(dir, { recursive: true, force: true })
    ctx.status = 204
    return
  }

  if (ctx.method === "GET" && key === undefined && "uploads" in ctx.query) {
    const ids = await Fs.readdir(uploads).catch(() => [])
    const entries = await Promise.all(
      ids.map(async (id) => ({ id, key: await Fs.readFile(NodePath.join(uploads, id, "key"), "utf8").catch(() => "") }))
    )
    ctx.status = 200
    ctx.type = "application/xml"
    ctx.body =
      `<?xml version="1.0" encoding="UTF-8"?>\n<ListMultipartUploadsResult><Bucket>${xmlEscape(bucket)}</Bucket>` +
      `<IsTruncated>false</IsTruncated>` +
      entries.map((e) => `<Upload><Key>${xmlEscape(e.key)}</Key><UploadId>${e.id}</UploadId></Upload>`).join("") +
      `</ListMultipartUploadsResult>`
    return
  }

  const ifMatch = ctx.get("if-match")
  if (ctx.method === "GET" && key !== undefined && ifMatch !== "") {
    const md5 = await Fs.readFile(`${server.store.getResourcePath(bucket, key, "object")}.md5`, "utf8").catch(() => undefined)
    if (md5 !== undefined && ifMatch.replace(/^W\//, "").replace(/"/g, "") !== md5.trim()) {
      return s3Error(ctx, 412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold")
    }
  }
  return next()
}

const atomicPutObject = (store: FilesystemStore) => async (object: StoredObject) => {
  const objectPath = store.getResourcePath(object.bucket, object.key, "object")
  await Fs.mkdir(NodePath.dirname(objectPath), { recursive: true })
  // Does not end in s3rver's object suffix, so listings never show it.
  const temporary = `${objectPath}.incoming-${randomUUID()}`
  const md5 = createHash("md5")
  let size = 0
  const source = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content
  await pipeline(
    source,
    new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        md5.update(chunk)
        size += chunk.length
        callback(null, chunk)
      }
    }),
    createWriteStream(temporary)
  )
  await Fs.rename(temporary, objectPath)
  const digest = md5.digest("hex")
  await store.putMetadata(object.bucket, object.key, object.metadata, digest)
  return { size, md5: digest }
}

/** Starts the server with one bucket; stops it and removes its directory when the scope closes. */
export const localS3 = Effect.acquireRelease(
  Effect.promise(async () => {
    const directory = mkdtempSync(NodePath.join(tmpdir(), "gw-s3-"))
    const bucket = "gateway-files"
    const server = new S3rver({ port: 0, address: "127.0.0.1", silent: true, directory, configureBuckets: [{ name: bucket }] })
    const requests: Array<string> = []
    server.middleware.unshift(missingCalls(server, requests))
    server.store.putObject = atomicPutObject(server.store)
    const { port } = await server.run()
    const endpoint = `http://127.0.0.1:${port}`
    const local: LocalS3 = {
      endpoint,
      bucket,
      requests,
      settings: (overrides = {}) => ({
        endpoint,
        bucket,
        region: "us-east-1",
        access_key_id: Redacted.make("S3RVER"),
        secret_access_key: Redacted.make("S3RVER"),
        force_path_style: true,
        prefix: "",
        ...overrides
      })
    }
    return { local, server, directory }
  }),
  ({ server, directory }) =>
    Effect.promise(async () => {
      await server.close()
      await Fs.rm(directory, { recursive: true, force: true })
    })
).pipe(Effect.map(({ local }) => local))

/** The running local server as a service, for tests that look at its request log. */
export class LocalS3Server extends Context.Service<LocalS3Server, LocalS3>()("test/LocalS3Server") {
  static readonly layer = Layer.effect(LocalS3Server, Effect.map(localS3, LocalS3Server.of))
}
