// Serve the RSSHub npm package (a library, no server binary) over HTTP on 127.0.0.1 only.
// Run it through scripts/rsshub-serve, which sets the environment RSSHub reads its config from
// (NODE_ENV=production, NO_RANDOM_UA, REQUEST_RETRY, CACHE_TYPE, ...), with Node 22.
//
// rsshub/dist-lib/pkg.mjs lazily imports the hono app chunk as `./app-<hash>.mjs`. We import that
// same chunk directly instead of calling pkg's init(), because init() sets IS_PACKAGE, which turns
// every error page into JSON and drops the console logger; served this way RSSHub behaves like its
// own server (HTML error pages, `?format=json` for JSON errors).
import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";

const HOST = "127.0.0.1";
const port = Number.parseInt(process.env.PORT || "1200", 10);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`rsshub: bad PORT ${JSON.stringify(process.env.PORT)}`);
    process.exit(2);
}

// rsshub's "exports" only expose ".", so find its files by path, next to this script.
const distLib = path.join(import.meta.dirname, "node_modules", "rsshub", "dist-lib");
const pkgSource = await readFile(path.join(distLib, "pkg.mjs"), "utf8");
const match = pkgSource.match(/import\(\s*["'](\.\/app-[A-Za-z0-9_-]+\.mjs)["']\s*\)/);
if (!match) {
    console.error(`rsshub: cannot find the app chunk import in ${path.join(distLib, "pkg.mjs")}`);
    process.exit(1);
}
const { default: app } = await import(pathToFileURL(path.join(distLib, match[1])).href);
if (!app || typeof app.fetch !== "function") {
    console.error(`rsshub: ${match[1]} does not export a hono app`);
    process.exit(1);
}

const { serve } = await import("@hono/node-server");

const server = serve({ fetch: app.fetch, hostname: HOST, port }, (info) => {
    console.log(`rsshub listening on http://${HOST}:${info.port}`);
});
server.on("error", (err) => {
    console.error(`rsshub: cannot listen on ${HOST}:${port}: ${err.message}`);
    process.exit(1);
});

let stopping = false;
function stop(signal) {
    if (stopping) return;
    stopping = true;
    console.error(`rsshub: ${signal}, shutting down`);
    // Give open connections a moment, then leave regardless (keep-alive sockets, pending fetches).
    setTimeout(() => process.exit(0), 2000).unref();
    server.close(() => process.exit(0));
    server.closeIdleConnections?.();
}
process.on("SIGTERM", () => stop("SIGTERM"));
process.on("SIGINT", () => stop("SIGINT"));
