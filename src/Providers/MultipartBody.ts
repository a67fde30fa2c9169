import { randomBytes } from "node:crypto"

export interface MultipartFile {
  readonly name: string
  readonly filename: string
  readonly contentType: string
  readonly bytes: Uint8Array
}

/**
 * A `multipart/form-data` body (RFC 7578) of text fields and files, for the upstream endpoints
 * that take uploads only that way. The boundary is random, so no content can contain it by chance.
 */
export const multipartBody = (
  fields: ReadonlyArray<readonly [string, string]>,
  files: ReadonlyArray<MultipartFile>
): { readonly contentType: string; readonly body: Uint8Array } => {
  const boundary = `----gateway${randomBytes(16).toString("hex")}`
  const quote = (value: string) => value.replace(/["\\\r\n]/g, "_")
  const parts: Array<Uint8Array> = []
  for (const [name, value] of fields) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quote(name)}"\r\n\r\n${value}\r\n`, "utf8"))
  }
  for (const file of files) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${quote(file.name)}"; filename="${quote(file.filename)}"\r\n` +
          `Content-Type: ${file.contentType}\r\n\r\n`,
        "utf8"
      ),
      file.bytes,
      Buffer.from("\r\n", "utf8")
    )
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`, "utf8"))
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat(parts) }
}
