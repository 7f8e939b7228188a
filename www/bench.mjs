// Page weight and time to first entry of the viewer in headless Chromium (Debian's, through
// playwright-core from tests/node_modules). Each trial is a fresh browser context (empty cache)
// loading /www/?sample=claude_local from www/server.mjs; the server's compression cache is warmed
// first, as precompressed static files would be in a deployment. Bytes are what went over the
// wire (CDP Network.loadingFinished encodedDataLength: headers + compressed bodies).
//
//   node www/bench.mjs [trials=7]
import { startServer } from "./server.mjs";
import { launch } from "../tests/browser/harness.mjs";

const trials = Number(process.argv[2] ?? 7);
const NETWORKS = [
  { name: "unthrottled (loopback)", conditions: null },
  { name: "50 Mbit/s, 20 ms RTT", conditions: { offline: false, latency: 20, downloadThroughput: (50e6 / 8), uploadThroughput: (10e6 / 8) } },
];

const server = await startServer({ port: 0 });
const sample = "claude_local";
const url = `${server.url}/www/?sample=${sample}&speed=1`;
// Warm the server's compression cache (every file the page loads).
for (const path of ["/www/", "/www/style.css", "/www/app.js", "/www/render.js", "/www/virtual.js", "/www/heights.js", "/www/histogram.js", "/www/chunks.js", "/www/samples.js", "/pkg/index.js", "/pkg/parsebox_wasm.js", "/pkg/parsebox_wasm_bg.wasm", `/www/samples/${sample}/run.ndjson`, `/api/adapters/${sample}/ui-parser.js`]) {
  const r = await fetch(server.url + path, { headers: { "accept-encoding": "br" } });
  if (!r.ok) throw new Error(`${path}: ${r.status}`);
  await r.arrayBuffer();
}

const browser = await launch();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const min = (xs) => Math.min(...xs);
const kb = (n) => `${(n / 1024).toFixed(0)} KB`;

for (const net of NETWORKS) {
  const rows = [];
  for (let i = 0; i < trials; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    if (net.conditions) await cdp.send("Network.emulateNetworkConditions", net.conditions);
    const requests = new Map();
    cdp.on("Network.responseReceived", (e) => requests.set(e.requestId, { url: e.response.url, type: e.response.mimeType, bytes: 0, decoded: 0 }));
    cdp.on("Network.dataReceived", (e) => {
      const r = requests.get(e.requestId);
      if (r) r.decoded += e.dataLength;
    });
    cdp.on("Network.loadingFinished", (e) => {
      const r = requests.get(e.requestId);
      if (r) r.bytes = e.encodedDataLength;
    });
    await page.goto(url);
    await page.waitForFunction(() => window.parseboxViewer?.firstEntryFrameMs && window.parseboxViewer.runs[0]?.readyMs, null, { timeout: 60_000 });
    await page.waitForTimeout(200);
    const v = await page.evaluate(() => {
      const nav = performance.getEntriesByType("navigation")[0];
      const wasm = performance.getEntriesByType("resource").find((r) => r.name.endsWith(".wasm"));
      const run = window.parseboxViewer.runs[0];
      return {
        dcl: nav.domContentLoadedEventEnd,
        wasmLoaded: wasm?.responseEnd,
        wasmReady: window.parseboxViewer.wasmReadyMs,
        firstEntry: window.parseboxViewer.firstEntryMs,
        firstFrame: window.parseboxViewer.firstEntryFrameMs,
        ready: run.startedAt + run.readyMs,
      };
    });
    const list = [...requests.values()].filter((r) => !r.url.startsWith("data:"));
    rows.push({ ...v, bytes: list.reduce((a, r) => a + r.bytes, 0), decoded: list.reduce((a, r) => a + r.decoded, 0), requests: list.length, list });
    await context.close();
  }
  console.log(`\n${net.name}: ${trials} cold loads of ${url.replace(server.url, "")}`);
  const last = rows.at(-1);
  console.log(`  page weight: ${last.bytes} bytes transferred (${kb(last.bytes)}), ${last.decoded} bytes decoded (${kb(last.decoded)}), ${last.requests} requests`);
  for (const r of last.list.sort((a, b) => b.bytes - a.bytes)) console.log(`    ${String(r.bytes).padStart(9)}  ${r.url.replace(server.url, "")}`);
  for (const [k, label] of [["dcl", "DOMContentLoaded"], ["wasmLoaded", "wasm downloaded"], ["wasmReady", "wasm compiled + instantiated"], ["firstEntry", "first entry in the DOM"], ["firstFrame", "first entry painted (next frame)"], ["ready", "parser ready"]]) {
    const xs = rows.map((r) => r[k]).filter(Number.isFinite);
    console.log(`  ${label.padEnd(34)} min ${min(xs).toFixed(0).padStart(5)} ms   median ${median(xs).toFixed(0).padStart(5)} ms`);
  }
}
await browser.close();
await server.close();
