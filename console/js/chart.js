// A stacked bar chart drawn as SVG: one bar per day, one colour per model.
const ns = "http://www.w3.org/2000/svg"
const palette = ["#3b6fd8", "#e07b39", "#3aa676", "#b04fc2", "#d64550", "#8a7a2e", "#2aa3b8", "#6b6b6b"]

const svg = (tag, attrs = {}, text) => {
  const el = document.createElementNS(ns, tag)
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value))
  if (text !== undefined) el.textContent = text
  return el
}

const nice = (max) => {
  if (max <= 0) return 1
  const step = 10 ** Math.floor(Math.log10(max))
  for (const m of [1, 2, 2.5, 5, 10]) if (m * step >= max) return m * step
  return 10 * step
}

/** `days`: the x axis; `series`: [{ name, values (one per day) }]; `format`: axis labels. */
export const stackedBars = ({ days, series, format = String, title }) => {
  const width = 860
  const height = 300
  const left = 70
  const bottom = 50
  const top = 16
  const plotH = height - bottom - top
  const plotW = width - left - 16
  const totals = days.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0))
  const max = nice(Math.max(0, ...totals))
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": title, class: "chart" })
  root.append(svg("title", {}, title))
  for (let t = 0; t <= 4; t++) {
    const y = top + plotH - (plotH * t) / 4
    root.append(svg("line", { x1: left, x2: width - 16, y1: y, y2: y, class: "grid" }))
    root.append(svg("text", { x: left - 6, y: y + 4, "text-anchor": "end", class: "axis" }, format((max * t) / 4)))
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
