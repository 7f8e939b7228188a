// The package side in headless Chromium (Debian's, through playwright-core, as tests/browser/
// does): pkg/ loaded by a page with `init()`, parsers inline or in real Web Workers. Each call
// crosses into the page as JSON text (lone surrogates and -0 travel escaped, not mangled).
import { fileURLToPath } from "node:url";

import { BROWSER, launch, newPage, serve } from "../browser/harness.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

// The page: the package and answers.mjs, one session (registry) per open().
const PAGE = `<!doctype html><meta charset="utf-8"><title>parsebox fuzz</title>
<script type="module">
import init, * as parsebox from "/pkg/index.js";
import { packageSide } from "/tests/fuzz/answers.mjs";
await init();
const side = packageSide(parsebox);
const sessions = new Map();
let next = 0;
window.fuzz = {
  async open(host, source) {
    const session = await side.open(host, JSON.parse(source));
    sessions.set(++next, session);
    return next;
  },
  async call(id, method, args) {
    return JSON.stringify(await sessions.get(id)[method](...JSON.parse(args)));
  },
  close(id) {
    sessions.get(id)?.close();
    sessions.delete(id);
  },
};
window.fuzzReady = true;
</script>`;

/** The package side in Chromium: `{ name, open(host, source), close() }`, like package.mjs'. */
export async function browserPackage() {
  const server = await serve(ROOT, { "/fuzz.html": () => ({ type: "text/html; charset=utf-8", body: PAGE }) });
  const browser = await launch();
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${server.url}/fuzz.html`);
  await page.waitForFunction(() => window.fuzzReady === true, null, { timeout: 60_000 });
  const checked = () => {
    if (errors.length) throw new Error(`page error: ${errors.map(String).join("; ")}`);
  };
  return {
    name: BROWSER,
    async open(host, source) {
      const id = await page.evaluate(([h, s]) => window.fuzz.open(h, s), [host, JSON.stringify(source)]);
      checked();
      const call = async (method, ...args) => {
        const out = await page.evaluate(([i, m, a]) => window.fuzz.call(i, m, a), [id, method, JSON.stringify(args)]);
        checked();
        return JSON.parse(out);
      };
      return {
        parseLines: (lines) => call("parseLines", lines),
        adapterStateless: (lines) => call("adapterStateless", lines),
        lineErrors: (lines) => call("lineErrors", lines),
        adapterRun: (lines) => call("adapterRun", lines),
        transcript: (chunks, style) => call("transcript", chunks, style),
        diagnostics: () => call("diagnostics"),
        close: () => page.evaluate((i) => window.fuzz.close(i), id),
      };
    },
    async close() {
      await browser.close();
      await server.close();
    },
  };
}
