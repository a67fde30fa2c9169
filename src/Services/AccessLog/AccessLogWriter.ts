import { writeSync } from "node:fs"

/**
 * Lines are collected and written together once per event-loop turn (or at 64 KiB), so a busy
 * gateway makes one write call for many requests instead of one each. What is still pending
 * when the process exits is written synchronously.
 */
export class AccessLogWriter {
  private pending: Array<string> = []
  private size = 0
  private scheduled = false
  private readonly sink: (text: string) => void
  private readonly flushNow = () => this.flush()

  constructor(sink: (text: string) => void, options: { readonly flushAtExit?: number } = {}) {
    this.sink = sink
    const fd = options.flushAtExit
    if (fd !== undefined) {
      process.once("exit", () => {
        if (this.pending.length === 0) return
        const text = this.take()
        try {
          writeSync(fd, text)
        } catch {
          // stdout already closed: nothing left to write to
        }
      })
    }
  }

  write(line: string): void {
    this.pending.push(line)
    this.size += line.length
    if (this.size >= 65_536) this.flush()
    else if (!this.scheduled) {
      this.scheduled = true
      setImmediate(this.flushNow)
    }
  }

  flush(): void {
    this.scheduled = false
    if (this.pending.length > 0) this.sink(this.take())
  }

  private take(): string {
    const text = this.pending.length === 1 ? this.pending[0]! : this.pending.join("")
    this.pending = []
    this.size = 0
    return text
  }
}
