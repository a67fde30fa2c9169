/** @joplin/turndown-plugin-gfm 1.0 ships no types; the plugins are Turndown plugins. */
declare module "@joplin/turndown-plugin-gfm" {
  import type TurndownService from "turndown"
  export const gfm: TurndownService.Plugin
  export const tables: TurndownService.Plugin
  export const strikethrough: TurndownService.Plugin
  export const taskListItems: TurndownService.Plugin
  export const highlightedCodeBlock: TurndownService.Plugin
}
