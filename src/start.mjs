// The process entry for `npm start`. Plain JavaScript on purpose: with Node's compile cache on
// before any TypeScript is loaded, later starts read the type-stripped sources from the cache and
// never load the TypeScript stripper, which stays resident (about 20 MB) once it has run.
import { enableCompileCache } from "node:module"
import { setFlagsFromString } from "node:v8"

// V8 moves an allocation site to the old generation once enough of its objects survive (many
// requests held open at once, say) and never moves it back; afterwards every request's
// short-lived objects from those sites are allocated old and keep young ones alive, and the
// process spends 13-16% more CPU per request for as long as it runs. Set before any of the
// gateway's code runs, so no site is ever pretenured.
setFlagsFromString("--no-allocation-site-pretenuring")

// Maglev, V8's middle compiler tier, compiles in bursts (the first requests after start, a burst
// of streams) in memory it takes from malloc, 25-33 MB at the peak, which glibc keeps after it is
// freed. Without it, functions go from the baseline tier straight to TurboFan: a cold process
// warms up over more requests, and at steady state measured the same or less CPU per request.
// `node --maglev src/start.mjs` keeps it.
if (!process.execArgv.includes("--maglev")) setFlagsFromString("--no-maglev")

enableCompileCache()
await import("./main.ts")
