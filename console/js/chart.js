// A stacked bar chart drawn as SVG: one bar per day, one colour per model.
const ns = "http://www.w3.org/2000/svg"
const palette = ["#3b6fd8", "#e07b39", "#3aa676", "#b04fc2", "#d64550", "#8a7a2e", "#2aa3b8", "#6b6b6b"]

const svg = (tag, attrs = {}, text) => {
  const el = document.createElementNS(ns, tag)
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value))
  if (text !== undefined) el.textContent = text
  return el
}

const ticks = 4

/**
 * The axis top: four equal steps of 1, 2, 2.5 or 5 times a power of ten covering `max`. Counts
 * (`integer`) step by whole numbers only, so no tick reads 0.75 requests.
 */
export const axisMax = (max, integer = false) => {
  if (max <= 0) return integer ? ticks : 1
  const raw = max / ticks
  const power = 10 ** Math.floor(Math.log10(raw))
  for (const m of [1, 2, 2.5, 5, 10]) {
    const step = m * power
    if (integer && !Number.isInteger(step)) continue
    if (step >= raw) return step * ticks
  }
  return 10 * power * ticks
}

/**
 * `days`: the x axis; `series`: [{ name, values (one per day) }]; `format`: axis labels and
 * totals; `integer`: the values are counts. Each bar carries its day's total above it.
 */
export const stackedBars = ({ days, series, format = String, title, integer = false }) => {
  const width = 860
  const height = 300
  const left = 70
  const bottom = 50
  const top = 16
  const plotH = height - bottom - top
  const plotW = width - left - 16
  const totals = days.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0))
  const max = axisMax(Math.max(0, ...totals), integer)
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": title, class: "chart" })
  root.append(svg("title", {}, title))
  for (let t = 0; t <= ticks; t++) {
    const y = top + plotH - (plotH * t) / ticks
    root.append(svg("line", { x1: left, x2: width - 16, y1: y, y2: y, class: "grid" }))
    root.append(svg("text", { x: left - 6, y: y + 4, "text-anchor": "end", class: "axis tick" }, format((max * t) / ticks)))
  }
  const slot = plotW / Math.max(1, days.length)
  const barW = Math.max(2, Math.min(40, slot * 0.7))
  days.forEach((day, i) => {
    let y = top + plotH
    const x = left + slot * i + (slot - barW) / 2
    series.forEach((s, j) => {
      const value = s.values[i] ?? 0
      if (value <= 0) return
      const h = (plotH * value) / max
      y -= h
      const bar = svg("rect", { x, y, width: barW, height: Math.max(h, 0.5), fill: palette[j % palette.length], "data-model": s.name, "data-day": day })
      bar.append(svg("title", {}, `${day} ${s.name}: ${format(value)}`))
      root.append(bar)
    })
    if (totals[i] > 0 && days.length <= 31) {
      root.append(svg("text", { x: x + barW / 2, y: y - 4, "text-anchor": "middle", class: "axis total", "data-day": day }, format(totals[i])))
    }
    const every = Math.ceil(days.length / 12)
    if (i % every === 0) root.append(svg("text", { x: x + barW / 2, y: height - bottom + 16, "text-anchor": "middle", class: "axis" }, day.slice(5)))
  })
  const legend = svg("g", { class: "legend" })
  series.forEach((s, j) => {
    const x = left + j * 150
    legend.append(svg("rect", { x, y: height - 18, width: 10, height: 10, fill: palette[j % palette.length] }))
    legend.append(svg("text", { x: x + 14, y: height - 9, class: "axis" }, s.name.length > 20 ? `${s.name.slice(0, 19)}…` : s.name))
  })
  root.append(legend)
  return root
}

export const colours = palette
