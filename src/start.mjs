// The process entry for `npm start`. Plain JavaScript on purpose: with Node's compile cache on
// before any TypeScript is loaded, later starts read the type-stripped sources from the cache and
// never load the TypeScript stripper, which stays resident (about 20 MB) once it has run.
import { enableCompileCache } from "node:module"

enableCompileCache()
await import("./main.ts")
