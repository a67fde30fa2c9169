import { open } from "node:fs/promises"

/**
 * Random reads from a file, for the container scanners: each read is served from a window of
 * the file kept in memory, so the scanners' many small forward reads cost one system call per
 * window, and at most one window of the file (never the whole of it) is held.
 */
export interface ByteSource {
  readonly size: number
  /** Up to `length` bytes at `offset`; fewer at the end of the file. The view is valid until the next read. */
  readonly read: (offset: number, length: number) => Promise<Uint8Array>
}

const windowBytes = 256 * 1024

export const memorySource = (bytes: Uint8Array): ByteSource => ({
  size: bytes.length,
  read: (offset, length) => Promise.resolve(bytes.subarray(Math.max(0, offset), Math.min(bytes.length, offset + length)))
})

/** Opens `path` for `use`, closing it afterwards whatever happens. */
export const withFileSource = async <A>(path: string, use: (source: ByteSource) => Promise<A>): Promise<A> => {
  const handle = await open(path, "r")
  try {
    const size = (await handle.stat()).size
    let window = new Uint8Array(0)
    let windowStart = 0
    const read = async (offset: number, length: number): Promise<Uint8Array> => {
      const start = Math.max(0, offset)
      const end = Math.min(size, start + length)
      if (end <= start) return new Uint8Array(0)
      if (start < windowStart || end > windowStart + window.length) {
        const want = Math.max(windowBytes, end - start)
        const buffer = new Uint8Array(Math.min(want, size - start))
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, start)
        window = buffer.subarray(0, bytesRead)
        windowStart = start
      }
      return window.subarray(start - windowStart, Math.min(end, windowStart + window.length) - windowStart)
    }
    return await use({ size, read })
  } finally {
    await handle.close()
  }
}
