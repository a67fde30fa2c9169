import { measure, type Target } from "./Measure.ts"
import { longStreamScenario, longStreamSizes } from "./Scenarios.ts"

export interface LongStreamRow {
  readonly chunks: number
  readonly streamsPerS: number
  readonly cpuMsPerStream: number
  readonly errors: number
}

export interface LongStreamsResult {
  readonly rows: ReadonlyArray<LongStreamRow>
  /** CPU per added chunk between consecutive sizes, in microseconds. */
  readonly marginalUs: ReadonlyArray<{ readonly from: number; readonly to: number; readonly usPerChunk: number }>
}

/**
 * Streams of 100, 400 and 1,600 content chunks through the gateway: a stream must cost the same
 * per chunk however many came before, so the CPU added per chunk from 100 to 400 chunks and from
 * 400 to 1,600 should match. Anything that grows with the stream (a buffer re-scanned, text
 * re-joined) makes the second figure larger.
 */
export const longStreams = async (
  target: Target,
  options: { readonly connections: number; readonly durationS: number; readonly warmupS: number; readonly log: (line: string) => void }
): Promise<LongStreamsResult> => {
  const rows: Array<LongStreamRow> = []
  for (const chunks of longStreamSizes) {
    const scenario = longStreamScenario(chunks)
    await measure(target, scenario, options.connections, options.warmupS)
    const phase = await measure(target, scenario, options.connections, options.durationS)
    rows.push({ chunks, streamsPerS: phase.rps, cpuMsPerStream: phase.cpuMsPerRequest, errors: phase.errors })
    options.log(`  ${chunks}-chunk streams via ${target.name}: ${phase.rps.toFixed(0)} streams/s, cpu ${phase.cpuMsPerRequest.toFixed(3)} ms/stream, errors ${phase.errors}`)
  }
  const marginalUs = rows.slice(1).map((row, i) => ({
    from: rows[i]!.chunks,
    to: row.chunks,
    usPerChunk: ((row.cpuMsPerStream - rows[i]!.cpuMsPerStream) / (row.chunks - rows[i]!.chunks)) * 1000
  }))
  return { rows, marginalUs }
}

export const longStreamsTable = (result: LongStreamsResult): string =>
  [
    "| content chunks per stream | streams/s | CPU ms per stream | CPU us per chunk (whole stream) | errors |",
    "| --- | --- | --- | --- | --- |",
    ...result.rows.map((r) =>
      `| ${r.chunks} | ${r.streamsPerS.toFixed(0)} | ${r.cpuMsPerStream.toFixed(3)} | ${((r.cpuMsPerStream / r.chunks) * 1000).toFixed(1)} | ${r.errors} |`
    ),
    "",
    `CPU added per chunk: ${result.marginalUs.map((m) => `${m.usPerChunk.toFixed(1)} us from ${m.from} to ${m.to} chunks`).join(", ")}.`
  ].join("\n")
