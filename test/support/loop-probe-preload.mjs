// Loaded into a gateway process (NODE_OPTIONS=--import) by LoopProbe.ts. Every 10 ms it notes how
// much CPU the main thread spent since the last tick: a turn of the event loop that held it (a
// parse, a regex) shows as CPU time, whereas a process merely waiting for a busy machine's cores
// shows as wall time only. Both maxima and the peak RSS are served on a port of their own.
import { createServer } from "node:http"

let last = process.threadCpuUsage()
let lastWall = performance.now()
let maxCpuMs = 0
let maxWallMs = 0
let maxRss = process.memoryUsage.rss()
const tick = setInterval(() => {
  const now = process.threadCpuUsage()
  const wall = performance.now()
  maxCpuMs = Math.max(maxCpuMs, (now.user - last.user + now.system - last.system) / 1000)
  maxWallMs = Math.max(maxWallMs, wall - lastWall)
  maxRss = Math.max(maxRss, process.memoryUsage.rss())
  last = now
  lastWall = wall
}, 10)
tick.unref()

const server = createServer((request, response) => {
  const body = JSON.stringify({ maxCpuMs, maxWallMs, maxRssMb: maxRss / 2 ** 20, rssMb: process.memoryUsage.rss() / 2 ** 20 })
  if (request.url === "/reset") {
    maxCpuMs = 0
    maxWallMs = 0
    maxRss = process.memoryUsage.rss()
  }
  response.end(body)
})
server.listen(0, "127.0.0.1", () => process.stdout.write(`loop probe on ${server.address().port}\n`))
server.unref()
