/**
 * What an image provider answers, normalised: each image as base64 or as a link the upstream
 * hosts (the gateway downloads those), with the token usage of token-billed models.
 */

export type ImageData =
  | { readonly _tag: "Base64"; readonly base64: string }
  | { readonly _tag: "Url"; readonly url: string }

export interface GeneratedImage {
  readonly data: ImageData
  /** The prompt the model actually drew, when it rewrote the one it was given. */
  readonly revisedPrompt?: string
}

/** Tokens as the upstream reported them; details split text from image tokens where it says. */
export interface ImageUsage {
  readonly inputTokens: number
  readonly outputTokens: number
  readonly inputTextTokens?: number
  readonly inputImageTokens?: number
  readonly outputTextTokens?: number
  readonly outputImageTokens?: number
}

export interface ImageResult {
  readonly images: ReadonlyArray<GeneratedImage>
  readonly usage?: ImageUsage
  /** Settings the upstream reports having used (OpenAI's GPT image models do). */
  readonly size?: string
  readonly quality?: string
  readonly background?: string
  readonly outputFormat?: string
}

export const addImageUsage = (a: ImageUsage | undefined, b: ImageUsage | undefined): ImageUsage | undefined => {
  if (a === undefined) return b
  if (b === undefined) return a
  const sum = (x: number | undefined, y: number | undefined) => (x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0))
  const parts = {
    inputTextTokens: sum(a.inputTextTokens, b.inputTextTokens),
    inputImageTokens: sum(a.inputImageTokens, b.inputImageTokens),
    outputTextTokens: sum(a.outputTextTokens, b.outputTextTokens),
    outputImageTokens: sum(a.outputImageTokens, b.outputImageTokens)
  }
  const usage: Record<string, number> = { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens }
  for (const [key, value] of Object.entries(parts)) if (value !== undefined) usage[key] = value
  return usage as unknown as ImageUsage
}
