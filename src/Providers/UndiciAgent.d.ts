// Types for the deep import of undici's Agent (src/Providers/ProviderHttp.ts): the module's
// export is the class the package root re-exports.
declare module "undici/lib/dispatcher/agent.js" {
  import type { Agent } from "undici"
  const AgentClass: typeof Agent
  export default AgentClass
}
