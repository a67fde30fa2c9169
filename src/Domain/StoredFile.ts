import * as Schema from "effect/Schema"

export const FilePurpose = Schema.Literals(["assistants", "batch", "fine-tune", "vision", "user_data", "evals"])
export type FilePurpose = typeof FilePurpose.Type

export type FileStatus = "uploaded" | "processed" | "error"

/** The File object of spec 2.6. `expires_at` only when an expiry was set; `status_details` only on error. */
export interface FileObject {
  readonly id: string
  readonly object: "file"
  readonly bytes: number
  readonly created_at: number
  readonly filename: string
  readonly purpose: FilePurpose
  readonly status: FileStatus
  readonly expires_at?: number
  readonly status_details?: string
}

/** What the gateway keeps about a file, beyond what clients see. */
export interface StoredFileRecord {
  readonly id: string
  readonly projectId: string
  readonly filename: string
  readonly purpose: FilePurpose
  readonly bytes: number
  readonly contentType: string
  readonly sha256: string
  readonly status: FileStatus
  readonly statusDetails: string | null
  readonly storageKey: string
  /** Unix seconds. */
  readonly createdAt: number
  readonly expiresAt: number | null
}

export const fileObject = (file: StoredFileRecord): FileObject => ({
  id: file.id,
  object: "file",
  bytes: file.bytes,
  created_at: file.createdAt,
  filename: file.filename,
  purpose: file.purpose,
  status: file.status,
  ...(file.expiresAt === null ? {} : { expires_at: file.expiresAt }),
  ...(file.status === "error" && file.statusDetails !== null ? { status_details: file.statusDetails } : {})
})

/** Spec 8: `expires_after[seconds]` bounds. */
export const minExpirySeconds = 3600
export const maxExpirySeconds = 2_592_000

export const noSuchFile = (id: string) => `No such File object: ${id}`
