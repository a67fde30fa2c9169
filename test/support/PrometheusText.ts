import parse, { type ParsedFamily, type ParsedSample } from "parse-prometheus-text-format"

/**
 * A scrape parsed by an independent Prometheus text-format parser, with look-ups by name and
 * labels. The parser folds a histogram's series into one sample and drops their labels when
 * there are any, so histograms are parsed as the series they are written as (`_bucket`,
 * `_sum`, `_count`, each with its labels); their declared type is kept from the `# TYPE` line.
 */
export const parseScrape = (text: string) => {
  const histograms = new Set([...text.matchAll(/^# TYPE (\S+) histogram$/gm)].map((m) => m[1]!))
  // prom-client writes each label set's buckets, sum and count together, so one series name
  // comes back as several runs: they are joined.
  const families = new Map<string, ParsedFamily>()
  for (const family of parse(text.replace(/^# TYPE (\S+) histogram$/gm, "# TYPE $1 untyped"))) {
    const seen = families.get(family.name)
    families.set(family.name, seen === undefined ? family : { ...seen, metrics: [...seen.metrics, ...family.metrics] })
  }
  const matching = (name: string, labels: Readonly<Record<string, string>>): ReadonlyArray<ParsedSample> =>
    (families.get(name)?.metrics ?? []).filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
  const value = (name: string, labels: Readonly<Record<string, string>> = {}): number | undefined => {
    const found = matching(name, labels)
    return found.length === 0 ? undefined : found.reduce((sum, m) => sum + Number(m.value), 0)
  }
  return {
    families,
    type: (name: string) => (histograms.has(name) ? "HISTOGRAM" : families.get(name)?.type),
    /** The sum of every sample of `name` whose labels include `labels`; undefined when none matches. */
    value,
    /** A histogram's observation count for `labels`. */
    count: (name: string, labels: Readonly<Record<string, string>> = {}) => value(`${name}_count`, labels),
    /** A histogram's cumulative bucket counts for one exact label set, by upper bound. */
    buckets: (name: string, labels: Readonly<Record<string, string>>) =>
      matching(`${name}_bucket`, labels).map((m) => [m.labels?.["le"] ?? "", Number(m.value)] as const),
    samples: matching
  }
}
