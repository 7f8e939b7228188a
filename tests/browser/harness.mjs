// Shared pieces of the browser tests: a static server on 127.0.0.1 and Debian's browsers
// (Chromium and Firefox ESR driven by playwright-core, WebKitGTK by webkit.mjs; no browser download).
import http from "node:http";
import { readFile, stat } from "node:fs/promises";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { extname, join, normalize } from "node:path";
import { chromium } from "playwright-core";
import { firefox } from "playwright-core-bidi";
import { launchWebKit } from "./webkit.mjs";

/**
 * The browser the tests run in: `PARSEBOX_BROWSER=firefox` for Debian's Firefox ESR (over
 * WebDriver BiDi), `webkit` for Debian's WebKitGTK (webkit.mjs, WebDriver classic), Chromium
 * otherwise. A test is written once; the harness picks the driver.
 */
export const BROWSER = process.env.PARSEBOX_BROWSER ?? "chromium";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".css": "text/css",
  ".log": "text/plain; charset=utf-8",
  ".ndjson": "text/plain; charset=utf-8",
};

/**
 * Serves `root` on 127.0.0.1 (a free port). `routes` maps exact paths to
 * `() => ({ status, type, body })` for generated content.
 */
export async function serve(root, routes = {}) {
  const server = http.createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    try {
      if (path === "/favicon.ico") {
        res.writeHead(204);
        res.end();
        return;
      }
      if (routes[path]) {
        const { status = 200, type = "text/javascript; charset=utf-8", body = "" } = await routes[path]();
        res.writeHead(status, { "content-type": type });
        res.end(body);
        return;
      }
      let file = normalize(join(root, path));
      if (!file.startsWith(normalize(root))) throw new Error("outside root");
      if ((await stat(file)).isDirectory()) file = join(file, "index.html");
      const body = await readFile(file);
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
      res.end(body);
    } catch {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not found");
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) };
}

/** Headless Debian Chromium or Firefox ESR; playwright gives every launch a fresh, empty profile. */
export async function launch() {
  if (BROWSER === "firefox") {
    return firefox.launch({ channel: "moz-firefox", executablePath: process.env.FIREFOX ?? "/usr/bin/firefox-esr", headless: true });
  }
  if (BROWSER === "webkit") return launchWebKit();
  if (BROWSER !== "chromium") throw new Error(`PARSEBOX_BROWSER: chromium, firefox or webkit, not ${BROWSER}`);
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
    ],
  });
}

/** A page that fails the test on uncaught page errors. */
export async function newPage(browser, errors) {
  const page = await browser.newPage();
  page.on("pageerror", (e) => errors.push(e));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(new Error(m.text()));
  });
  return page;
}

/**
 * Holds `page`'s requests matching `pattern` until `until` settles, then lets them through: a
 * slow network or a cold server, on the test's cue rather than a clock's.
 */
export async function holdRoute(page, pattern, until) {
  await page.route(pattern, async (route) => {
    await until;
    await route.continue();
  });
}

/**
 * Launches Chromium, opens `server.url + path` and waits until the page sets
 * `window.ready = true` (the benchmarks' pages do once their helpers are defined).
 */
export async function openReady(server, path, errors = []) {
  const browser = await launch();
  const page = await newPage(browser, errors);
  await page.goto(`${server.url}${path}`);
  await page.waitForFunction(() => window.ready === true, null, { timeout: 30_000 });
  return { browser, page };
}

/**
 * What a reader sees scrolling a virtualised list from top to bottom (the viewer keeps only the
 * rows near the viewport in the DOM): scrolls `scroller` (a selector) to the top, then down half
 * a screen at a time; at each stop, after the viewer's draw, runs `read` in the page on the
 * elements matching `selector` and takes the [key, value] pairs it returns. The values come back
 * in the order their keys were first seen (top to bottom), each the latest seen. The scroll
 * starts with a pointerdown on the scroller and ends with a pointerup, as a drag of its scrollbar
 * would, so the viewer stops following the newest entry until the sweep reaches the bottom.
 */
export async function sweep(page, { scroller, selector, read }) {
  const seen = new Map();
  const frames = async () => {
    for (let tries = 1; ; tries++) {
      try {
        return await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      } catch (e) {
        // WebKitWebDriver now and then fails to read a script's result (session 32, once in a
        // full run: "Could not parse script result"). This wait runs none of the page's code,
        // so it is simply tried again.
        if (tries >= 3 || !/Could not parse script result/.test(String(e?.message ?? e))) throw e;
      }
    }
  };
  await page.$eval(scroller, (el) => {
    el.dispatchEvent(new PointerEvent("pointerdown", { bubbles: true }));
    el.scrollTop = 0;
  });
  for (;;) {
    await frames();
    for (const [key, value] of await page.$$eval(selector, read)) seen.set(key, value);
    const atEnd = await page.$eval(scroller, (el) => {
      if (el.scrollTop + el.clientHeight >= el.scrollHeight - 1) return true;
      const was = el.scrollTop;
      el.scrollTop += Math.max(1, el.clientHeight / 2);
      return el.scrollTop === was; // it cannot go further
    });
    if (atEnd) {
      await page.$eval(scroller, (el) => el.dispatchEvent(new PointerEvent("pointerup", { bubbles: true })));
      return [...seen.values()];
    }
  }
}

/**
 * CPU time, in clock ticks (`getconf CLK_TCK`, 100 a second here), used so far by every process
 * this test process started and their children: the browser, its helper processes, WebKit's
 * driver. Read from /proc (Linux); null where there is none. A thread that keeps running in a
 * browser shows here as ticks that keep growing while the page does nothing.
 */
export function descendantCpuTicks() {
  if (!existsSync("/proc/self/stat")) return null;
  const parentOf = new Map();
  const ticks = new Map();
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      // Fields after the command name (which may hold spaces): state is [0], ppid [1], utime [11], stime [12].
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ").at(-1).split(" ");
      parentOf.set(+pid, +fields[1]);
      ticks.set(+pid, +fields[11] + +fields[12]);
    } catch {
      // The process ended while being read.
    }
  }
  const ours = (pid) => {
    for (let p = parentOf.get(pid); p; p = parentOf.get(p)) if (p === process.pid) return true;
    return false;
  };
  let total = 0;
  for (const [pid, t] of ticks) if (ours(pid)) total += t;
  return total;
}
