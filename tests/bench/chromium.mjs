// The benchmark page in headless Chromium, for the bench commands that also measure in a
// browser (node.mjs, corpus.mjs): a static server for bench.html and a package, and Debian's
// Chromium driven by playwright-core (tests/node_modules). A bench helper, not a test.
import http from "node:http";
import { readFileSync } from "node:fs";
import { dirname, extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

const MIME = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };

/**
 * A static server on 127.0.0.1: /bench/ → tests/bench, /pkg/ → `pkgDir`, cross-origin isolated
 * (5 µs timers). `routes` maps a path prefix to `(path) => text` for generated content.
 */
export async function serve(pkgDir, routes = {}) {
  const roots = { "/bench/": here, "/pkg/": pkgDir };
  const server = http.createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    const headers = { "cross-origin-opener-policy": "same-origin", "cross-origin-embedder-policy": "require-corp", "cache-control": "no-store" };
    try {
      if (path === "/favicon.ico") {
        res.writeHead(204, headers);
        res.end();
        return;
      }
      const route = Object.keys(routes).find((p) => path.startsWith(p));
      if (route) {
        res.writeHead(200, { ...headers, "content-type": "text/plain; charset=utf-8" });
        res.end(routes[route](path));
        return;
      }
      const prefix = Object.keys(roots).find((p) => path.startsWith(p));
      if (!prefix) throw new Error("no root");
      const file = normalize(join(roots[prefix], path.slice(prefix.length)));
      if (!file.startsWith(normalize(roots[prefix]))) throw new Error("outside root");
      const body = readFileSync(file);
      res.writeHead(200, { ...headers, "content-type": MIME[extname(file)] ?? "application/octet-stream" });
      res.end(body);
    } catch {
      console.error(`bench server: 404 ${path}`);
      res.writeHead(404, headers);
      res.end("not found");
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

/** Headless Chromium (`$CHROMIUM`, else /usr/bin/chromium) with `gc()` exposed to pages. */
export async function launchChromium() {
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--enable-precise-memory-info", "--js-flags=--expose-gc"],
  });
}

/**
 * bench.html in a fresh context of `browser`, once its page.mjs is ready. Errors the page throws
 * or logs collect in `errors`; `bytes` records each response's size by path.
 */
export async function openBenchPage(browser, server) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(new Error(m.text()));
  });
  const bytes = {};
  page.on("response", async (r) => {
    try {
      const b = await r.body();
      bytes[new URL(r.url()).pathname] = b.length;
    } catch {
      /* redirects, aborted */
    }
  });
  await page.goto(`${server.url}/bench/bench.html`);
  await page.waitForFunction(() => window.benchReady === true);
  return { context, page, errors, bytes };
}

/**
 * Runs `fn(pb, shapeLog, ...args)` in a bench page and returns what it returns: `pb` the package
 * (initialised, its engine ready), `shapeLog` gen-log.mjs's. `fn` travels as its source, so it
 * names nothing outside itself; `args` are JSON values.
 */
export function runWithPackage(page, fn, ...args) {
  return page.evaluate(
    async ([source, args]) => {
      const pb = await import("/pkg/index.js");
      await pb.default();
      await pb.engineReady();
      const { shapeLog } = await import("/bench/gen-log.mjs");
      return new Function(`return (${source})`)()(pb, shapeLog, ...args);
    },
    [fn.toString(), args],
  );
}
