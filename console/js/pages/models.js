import { api } from "../api.js"
import { h, render, table } from "../dom.js"

const price = (value, unit) => (value === undefined ? null : `$${value} ${unit}`)

export const modelsPage = async () => {
  const models = (await api("GET", "/admin/models")).data
  render(
    h("h1", {}, "Models"),
    h("p", { class: "muted" }, "The catalogue gateway.yaml configures. Token prices are per million tokens."),
    table([
      ["Model", (m) => h("code", {}, m.id)],
      ["Kind", (m) => m.kind],
      ["Provider", (m) => m.owned_by],
      ["Context", (m) => m.context_length ?? "—"],
      ["Input", (m) => m.input_modalities.join(", ")],
      ["Capabilities", (m) => {
        const on = Object.entries(m.capabilities).filter(([, enabled]) => enabled)
        return on.length === 0 ? "—" : on.map(([name]) => h("span", { class: "tag" }, name.replaceAll("_", " ")))
      }],
      ["Prices", (m) => [
        price(m.pricing.input_per_mtok, "in"),
        price(m.pricing.output_per_mtok, "out"),
        price(m.pricing.cached_input_per_mtok, "cached in"),
        price(m.pricing.per_image, "per image"),
        price(m.pricing.per_audio_second, "per audio second"),
        price(m.pricing.per_request, "per request")
      ].filter((p) => p !== null).join(" · ") || "—"]
    ], models, { id: "models" }, "No models configured. Add entries under 'models' in gateway.yaml and restart the gateway.")
  )
}
