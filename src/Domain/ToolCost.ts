import type { ToolPrices } from "./ToolsSettings.ts"

export type ToolId = keyof ToolPrices

/**
 * The price of one call of `tool` in integer nano-dollars. A tool call is priced per call, so
 * this is both the worst case the billing step reserves before the call and what a call that
 * ran is charged.
 */
export const toolCallCostNanoUsd = (prices: ToolPrices, tool: ToolId): number => Math.round(prices[tool] * 1e9)
