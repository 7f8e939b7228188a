// WebKit for the browser tests: Debian's WebKitGTK MiniBrowser driven by its WebKitWebDriver
// (WebDriver classic over HTTP; this WebKit has no BiDi), on an Xvfb display of our own.
//
// It gives the tests the part of playwright's Browser and Page they use, so a test is written
// once for every engine: `evaluate`, `waitForFunction`, `$eval`, `click`, the mouse wheel, file
// inputs, and, through a proxy of each page's own (webkit-proxy.mjs), `route`, `addInitScript`
// and response events. What it cannot do is refused with a clear error (worker events). Page
// errors (an uncaught error or rejection, or a console.error) are collected from the first
// script of each document on, and reported at the next call that reaches the page.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startProxy } from "./webkit-proxy.mjs";

const MINIBROWSER = process.env.WEBKIT_MINIBROWSER ?? "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";
const DRIVER = process.env.WEBKIT_WEBDRIVER ?? "/usr/bin/WebKitWebDriver";

/** Error of a wait that ran out, named as playwright names it. */
class TimeoutError extends Error {
  name = "TimeoutError";
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The processes started here end with this one, however it ends (a test's timeout included).
const children = new Set();
const own = (child) => {
  children.add(child);
  child.on("exit", () => children.delete(child));
  return child;
};
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

async function freePort() {
  const server = createServer();
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

/** An Xvfb display of our own: `{ display, alive, stop }`. */
async function startDisplay() {
  const xvfb = own(spawn("Xvfb", ["-displayfd", "3", "-screen", "0", "1600x1200x24", "-nolisten", "tcp"], { stdio: ["ignore", "ignore", "ignore", "pipe"] }));
  const display = await new Promise((resolve, reject) => {
    let text = "";
    xvfb.stdio[3].on("data", (d) => {
      text += d;
      if (text.includes("\n")) resolve(`:${text.trim()}`);
    });
    xvfb.on("exit", (code) => reject(new Error(`Xvfb exited (${code}) before it gave a display`)));
  });
  let stopped = false;
  xvfb.on("exit", (code, signal) => {
    if (!stopped) console.error(`# Xvfb on ${display} exited (${code ?? signal}) while in use`);
  });
  return {
    display,
    alive: () => xvfb.exitCode === null && xvfb.signalCode === null,
    stop: () => {
      stopped = true;
      xvfb.kill();
    },
  };
}

/**
 * One WebDriver session on a driver process of its own (a driver serves one session at a time),
 * its requests sent through `proxy` (`host:port`).
 */
async function startSession(liveDisplay, proxy) {
  // Creating a session once never answered (seen in a cold CI run: the request failed after
  // undici's 300 s, the display's Xvfb gone): each try has a deadline, and a failed one is
  // retried on a fresh driver, on a display started again if its Xvfb has exited.
  let last;
  for (let attempt = 1; attempt <= SESSION_TRIES; attempt++) {
    try {
      return await trySession(await liveDisplay(), proxy);
    } catch (e) {
      last = e;
      console.error(`# WebKit session, try ${attempt} of ${SESSION_TRIES}: ${e.message}`);
    }
  }
  throw new Error(`WebKitWebDriver gave no session in ${SESSION_TRIES} tries: ${last?.message}`, { cause: last });
}

/** How many drivers [`startSession`] tries, and how long each may take to create a session. */
const SESSION_TRIES = 3;
const SESSION_DEADLINE_MS = 120_000;

/** One try of [`startSession`]: a fresh driver, killed again if it gives no session. */
async function trySession(display, proxy) {
  const port = await freePort();
  const driver = own(spawn(DRIVER, [`--port=${port}`], { stdio: "ignore", env: { ...process.env, DISPLAY: display } }));
  const base = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    try {
      if ((await fetch(`${base}/status`)).ok) break;
    } catch {
      // not listening yet
    }
    if (tries > 100) {
      driver.kill();
      throw new Error(`WebKitWebDriver did not start on port ${port}`);
    }
    await sleep(50);
  }
  const call = async (method, path, body, signal) => {
    const r = await fetch(`${base}${path}`, { method, signal, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = await r.json();
    if (!r.ok) throw new Error(`WebDriver ${method} ${path}: ${json.value?.error}: ${json.value?.message}`);
    return json.value;
  };
  let created;
  try {
    created = await call("POST", "/session", {
      capabilities: {
        alwaysMatch: {
          "webkitgtk:browserOptions": { binary: MINIBROWSER, args: ["--automation"] },
          // 127.0.0.1 included: the test servers are there.
          proxy: { proxyType: "manual", httpProxy: proxy, noProxy: [] },
        },
      },
    }, AbortSignal.timeout(SESSION_DEADLINE_MS));
  } catch (e) {
    driver.kill();
    throw e;
  }
  const id = created.sessionId;
  await call("POST", `/session/${id}/timeouts`, { script: 3_600_000, pageLoad: 120_000 });
  return {
    call: (method, path, body) => call(method, `/session/${id}${path}`, body),
    async end() {
      await call("DELETE", `/session/${id}`).catch(() => {});
      driver.kill();
    },
  };
}

// In the page: runs `fn` (source) on `arg` and answers `{ value }` or `{ error }`, after a
// promise settles. Values cross as JSON text, so `undefined` in an array or object stays absent
// as playwright's would not; the tests pass and return plain JSON.
const RUN = `
const [src, arg, done] = arguments;
Promise.resolve()
  .then(() => { const f = (0, eval)("(" + src + ")"); return typeof f === "function" ? f(arg) : f; })
  .then((v) => done({ value: v === undefined ? null : JSON.stringify(v) }), (e) => done({ error: String(e && e.stack ? e.message + "\\n" + e.stack : e) }));
`;

// Run before a document's own scripts (the proxy puts it first), and again once it has loaded
// (a document the proxy did not pass, such as about:blank): collects what would be page errors.
const WATCH = `
if (!window.__parseboxErrors) {
  const errors = (window.__parseboxErrors = []);
  // Counted once every listener has run: one that calls preventDefault() handled it, as the
  // page's own error handling does (playwright reports no page error for it either).
  const unlessHandled = (e, text) => setTimeout(() => e.defaultPrevented || errors.push(text));
  addEventListener("error", (e) => unlessHandled(e, String(e.message || e.error)));
  addEventListener("unhandledrejection", (e) => unlessHandled(e, "unhandled rejection: " + String(e.reason && e.reason.message || e.reason)));
  const was = console.error;
  console.error = (...a) => { errors.push(a.map(String).join(" ")); was.apply(console, a); };
}
`;

class WebKitPage {
  #session;
  #proxy;
  #listeners = { pageerror: [], console: [], response: [] };
  #mouse = { x: 0, y: 0 };
  /** Directories `setInputFiles` wrote, removed at `close()`. */
  #uploads = [];

  constructor(session, proxy) {
    this.#session = session;
    this.#proxy = proxy;
    proxy.onResponse((r) => this.#listeners.response.forEach((l) => l(r)));
    // Errors are collected from the first script on, not only once the page has loaded.
    proxy.addInitScript(WATCH);
    this.mouse = {
      move: async (x, y) => {
        this.#mouse = { x: Math.round(x), y: Math.round(y) };
        await this.#session.call("POST", "/actions", { actions: [{ type: "pointer", id: "mouse", parameters: { pointerType: "mouse" }, actions: [{ type: "pointerMove", x: this.#mouse.x, y: this.#mouse.y, origin: "viewport" }] }] });
      },
      wheel: async (deltaX, deltaY) => {
        const { x, y } = this.#mouse;
        await this.#session.call("POST", "/actions", { actions: [{ type: "wheel", id: "wheel", actions: [{ type: "scroll", x, y, deltaX: Math.round(deltaX), deltaY: Math.round(deltaY), origin: "viewport" }] }] });
        // Released after each scroll: without it WebKitWebDriver dropped every other wheel
        // action (one step scrolled nothing, the next both).
        await this.#session.call("DELETE", "/actions");
      },
    };
  }

  on(event, listener) {
    if (!(event in this.#listeners)) throw new Error(`WebKit pages (WebDriver classic) have no "${event}" events`);
    this.#listeners[event].push(listener);
  }

  async goto(url) {
    await this.#session.call("POST", "/url", { url });
    await this.#session.call("POST", "/execute/sync", { script: WATCH, args: [] });
  }

  /** `fn` (a function or an expression) run in the page on `arg`. */
  async evaluate(fn, arg) {
    const src = typeof fn === "function" ? fn.toString() : String(fn);
    const out = await this.#session.call("POST", "/execute/async", { script: RUN, args: [src, arg === undefined ? null : arg] });
    await this.#collectErrors();
    if (out.error !== undefined) throw new Error(`page.evaluate: ${out.error}`);
    return out.value === null ? undefined : JSON.parse(out.value);
  }

  async #collectErrors() {
    const found = await this.#session.call("POST", "/execute/sync", { script: "const e = window.__parseboxErrors || []; return e.splice(0);", args: [] }).catch(() => []);
    for (const text of found ?? []) {
      const error = new Error(text);
      for (const l of this.#listeners.pageerror) l(error);
    }
  }

  async waitForFunction(fn, arg, { timeout = 30_000, polling = 50 } = {}) {
    const src = typeof fn === "function" ? fn.toString() : `() => (${fn})`;
    const until = Date.now() + timeout;
    for (;;) {
      const value = await this.evaluate(`(arg) => (${src})(arg)`, arg);
      if (value) return value;
      if (Date.now() > until) throw new TimeoutError(`page.waitForFunction: Timeout ${timeout}ms exceeded.`);
      await sleep(typeof polling === "number" ? polling : 50);
    }
  }

  async waitForSelector(selector, { timeout = 30_000, state = "visible" } = {}) {
    const until = Date.now() + timeout;
    for (;;) {
      const ok = await this.evaluate(
        ([sel, state]) => {
          const el = document.querySelector(sel);
          const shown = !!el && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
          return state === "attached" ? !!el : state === "detached" ? !el : state === "hidden" ? !shown : shown;
        },
        [selector, state],
      );
      if (ok) return state === "detached" || state === "hidden" ? null : { selector };
      if (Date.now() > until) throw new TimeoutError(`page.waitForSelector: Timeout ${timeout}ms exceeded waiting for ${selector} to be ${state}.`);
      await sleep(50);
    }
  }

  $eval(selector, fn, arg) {
    return this.evaluate(
      ([sel, src, arg]) => {
        const el = document.querySelector(sel);
        if (!el) throw new Error(`no element matches ${sel}`);
        return (0, eval)(`(${src})`)(el, arg);
      },
      [selector, fn.toString(), arg ?? null],
    );
  }

  $$eval(selector, fn, arg) {
    return this.evaluate(([sel, src, arg]) => (0, eval)(`(${src})`)([...document.querySelectorAll(sel)], arg), [selector, fn.toString(), arg ?? null]);
  }

  /** A stand-in handle (truthy) when `selector` matches, else null. */
  async $(selector) {
    return (await this.evaluate((sel) => document.querySelector(sel) !== null, selector)) ? { selector } : null;
  }

  async textContent(selector) {
    await this.waitForSelector(selector, { state: "attached" });
    return this.$eval(selector, (el) => el.textContent);
  }

  async getAttribute(selector, name) {
    await this.waitForSelector(selector, { state: "attached" });
    return this.$eval(selector, (el, name) => el.getAttribute(name), name);
  }

  title() {
    return this.evaluate(() => document.title);
  }

  /** A real click (the driver's pointer) on the element, once it is visible. */
  async click(selector) {
    await this.waitForSelector(selector);
    await this.evaluate((sel) => document.querySelector(sel).scrollIntoView({ block: "nearest" }), selector);
    const el = await this.#session.call("POST", "/element", { using: "css selector", value: selector });
    await this.#session.call("POST", `/element/${Object.values(el)[0]}/click`, {});
    await this.#collectErrors();
  }

  async fill(selector, value) {
    await this.waitForSelector(selector);
    const el = Object.values(await this.#session.call("POST", "/element", { using: "css selector", value: selector }))[0];
    await this.#session.call("POST", `/element/${el}/clear`, {});
    await this.#session.call("POST", `/element/${el}/value`, { text: value });
  }

  waitForTimeout(ms) {
    return sleep(ms);
  }

  /** The viewport (not the window) `width` × `height`. */
  async setViewportSize({ width, height }) {
    await this.#session.call("POST", "/window/rect", { width, height });
    const inner = await this.evaluate(() => [innerWidth, innerHeight]).catch(() => [width, height]);
    await this.#session.call("POST", "/window/rect", { width: 2 * width - inner[0], height: 2 * height - inner[1] });
  }

  async screenshot({ path } = {}) {
    const png = Buffer.from(await this.#session.call("GET", "/screenshot"), "base64");
    if (path) await (await import("node:fs/promises")).writeFile(path, png);
    return png;
  }

  /** Routes requests whose URL matches `glob` (playwright's globs) to `handler(route)`. */
  async route(glob, handler) {
    this.#proxy.route(glob, handler);
  }

  /**
   * Gives a file input one file, `{ name, buffer }` (playwright's shape; `mimeType` is left to
   * the browser): written to a directory of its own, then sent as the input's keys, as WebDriver
   * uploads files.
   */
  async setInputFiles(selector, { name, buffer }) {
    await this.waitForSelector(selector, { state: "attached" });
    const { mkdtemp, writeFile } = await import("node:fs/promises");
    const dir = await mkdtemp(join(tmpdir(), "parsebox-upload-"));
    this.#uploads.push(dir);
    const path = join(dir, name);
    await writeFile(path, buffer);
    const el = Object.values(await this.#session.call("POST", "/element", { using: "css selector", value: selector }))[0];
    await this.#session.call("POST", `/element/${el}/value`, { text: path });
    await this.#collectErrors();
  }

  /** Runs `fn(arg)` (or the source `fn`) in every document the page loads, before its own scripts. */
  async addInitScript(fn, arg) {
    this.#proxy.addInitScript(fn, arg);
  }

  async close() {
    await this.#session.end();
    await this.#proxy.close();
    const { rm } = await import("node:fs/promises");
    for (const dir of this.#uploads.splice(0)) await rm(dir, { recursive: true, force: true });
  }
}

/** WebKitGTK as a playwright-like Browser: `newPage()`, `close()`. */
export async function launchWebKit() {
  let screen = await startDisplay();
  const liveDisplay = async () => {
    if (!screen.alive()) screen = await startDisplay();
    return screen.display;
  };
  const pages = new Set();
  return {
    async newPage() {
      const proxy = await startProxy();
      const page = new WebKitPage(await startSession(liveDisplay, proxy.address), proxy);
      pages.add(page);
      return page;
    },
    async close() {
      for (const page of pages) await page.close();
      pages.clear();
      screen.stop();
    },
  };
}
