#!/usr/bin/env node
// The viewer's static server: serves the repository root on 127.0.0.1 with correct MIME types
// (application/wasm included) and brotli/gzip compression, plus Paperclip's parser route
// `GET /api/adapters/:type/ui-parser.js` answered from www/samples/<type>/ui-parser.js, so the
// registry's default loader works. `?delay=ms` (or PARSER_DELAY_MS) delays that route, to show
// the generic → loading → ready sequence. No dependencies.
//
//   node www/server.mjs            # PORT=8080 by default; prints the viewer's URL
//   import { startServer } from "./server.mjs"   # tests: { url, close }
import http from "node:http";
import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import zlib from "node:zlib";

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

const REPO = fileURLToPath(new URL("..", import.meta.url));

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".cjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".ndjson": "application/x-ndjson; charset=utf-8",
  ".jsonl": "application/x-ndjson; charset=utf-8",
  ".log": "text/plain; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".md": "text/markdown; charset=utf-8",
  ".ts": "text/plain; charset=utf-8",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
};
const COMPRESSIBLE = /^(text\/|application\/(wasm|json|x-ndjson)|image\/svg)/;
const ADAPTER_ROUTE = /^\/api\/adapters\/([^/]+)\/ui-parser\.js$/;
const ADAPTER_TYPE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

// Compressed bodies, keyed by path, encoding and file version; big files (the 5.7 MB wasm) get a
// fast brotli level, small ones the best.
const compressed = new Map();
async function encode(file, info, body, encoding) {
  const key = `${file}\0${encoding}\0${info.mtimeMs}\0${info.size}`;
  let entry = compressed.get(key);
  if (!entry) {
    const quality = body.length > 1 << 20 ? 5 : 11;
    entry =
      encoding === "br"
        ? brotli(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
        : gzip(body, { level: 9 });
    compressed.set(key, entry);
    entry.catch(() => compressed.delete(key));
  }
  return entry;
}

function pickEncoding(req) {
  const accept = String(req.headers["accept-encoding"] ?? "");
  if (/\bbr\b/.test(accept)) return "br";
  if (/\bgzip\b/.test(accept)) return "gzip";
  return null;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts the server. `root`: the directory served (the repository root); `samples`: where
 * adapter parsers come from; `parserDelayMs`: default delay of the parser route.
 */
export async function startServer({ root = REPO, samples = join(REPO, "www", "samples"), host = "127.0.0.1", port = 8080, parserDelayMs = 0, quiet = true } = {}) {
  const rootDir = normalize(root + sep);

  async function send(req, res, file, { type, cache = "no-cache" } = {}) {
    const info = await stat(file);
    if (!info.isFile()) throw Object.assign(new Error("not a file"), { code: "ENOENT" });
    const contentType = type ?? TYPES[extname(file).toLowerCase()] ?? "application/octet-stream";
    const etag = `"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
    const headers = { "content-type": contentType, "cache-control": cache, etag, vary: "Accept-Encoding", "x-content-type-options": "nosniff" };
    if (req.headers["if-none-match"] === etag) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    const encoding = COMPRESSIBLE.test(contentType) && info.size > 1024 ? pickEncoding(req) : null;
    if (encoding) {
      const body = await encode(file, info, await readFile(file), encoding);
      res.writeHead(200, { ...headers, "content-encoding": encoding, "content-length": body.length });
      res.end(req.method === "HEAD" ? undefined : body);
      return;
    }
    res.writeHead(200, { ...headers, "content-length": info.size });
    if (req.method === "HEAD") res.end();
    else createReadStream(file).pipe(res);
  }

  function fail(res, status, text) {
    res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
    res.end(`${text}\n`);
  }

  const server = http.createServer(async (req, res) => {
    const started = Date.now();
    let url;
    try {
      url = new URL(req.url ?? "/", "http://localhost");
    } catch {
      fail(res, 400, "bad request");
      return;
    }
    let path;
    try {
      path = decodeURIComponent(url.pathname);
    } catch {
      fail(res, 400, "bad request");
      return;
    }
    res.on("finish", () => {
      if (!quiet) console.log(`${res.statusCode} ${req.method} ${url.pathname}${url.search} ${Date.now() - started} ms`);
    });
    if (req.method !== "GET" && req.method !== "HEAD") {
      fail(res, 405, "method not allowed");
      return;
    }
    try {
      if (path === "/" || path === "/www") {
        res.writeHead(302, { location: "/www/" });
        res.end();
        return;
      }
      if (path === "/favicon.ico") {
        res.writeHead(204);
        res.end();
        return;
      }
      const route = ADAPTER_ROUTE.exec(path);
      if (route) {
        const type = route[1];
        if (!ADAPTER_TYPE.test(type)) {
          fail(res, 404, `no parser for adapter type ${JSON.stringify(type)}`);
          return;
        }
        const delay = Math.min(Number(url.searchParams.get("delay") ?? parserDelayMs) || 0, 60_000);
        if (delay > 0) await sleep(delay);
        try {
          await send(req, res, join(samples, type, "ui-parser.js"), { type: "text/javascript; charset=utf-8", cache: "no-store" });
        } catch (e) {
          if (e.code !== "ENOENT" && e.code !== "ENOTDIR") throw e;
          fail(res, 404, `no parser for adapter type ${JSON.stringify(type)}`);
        }
        return;
      }
      // Static files. Dot-segments (.git, .cargo, …) are never served.
      if (path.split("/").some((s) => s.startsWith("."))) {
        fail(res, 404, "not found");
        return;
      }
      let file = normalize(join(rootDir, path));
      if (!file.startsWith(rootDir) && file + sep !== rootDir) {
        fail(res, 404, "not found");
        return;
      }
      const info = await stat(file);
      if (info.isDirectory()) {
        if (!path.endsWith("/")) {
          res.writeHead(301, { location: `${url.pathname}/${url.search}` });
          res.end();
          return;
        }
        file = join(file, "index.html");
      }
      await send(req, res, file);
    } catch (e) {
      if (e.code === "ENOENT" || e.code === "ENOTDIR" || e.code === "EISDIR") fail(res, 404, "not found");
      else {
        console.error(e);
        if (!res.headersSent) fail(res, 500, "internal error");
        else res.destroy();
      }
    }
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  const address = server.address();
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(resolve); }),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const port = Number(process.env.PORT ?? 8080);
  const { url } = await startServer({ port, parserDelayMs: Number(process.env.PARSER_DELAY_MS ?? 0), quiet: !process.env.VERBOSE });
  console.log(`parsebox viewer: ${url}/www/`);
}
