// The viewer draws its tool cards and the connector from the package's timeline (issue 15), in
// headless Chromium: a running call turns into a completed one and a failed one in place (same
// item id), a call the run never answered says so after finish(), and isFirst / isLast end the
// connector.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, newPage } from "./harness.mjs";
import { startServer } from "../../www/server.mjs";

let server;
let browser;

before(async () => {
  server = await startServer({ port: 0 });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const PARSER = `module.exports = { parseStdoutLine(line, ts) {
  const m = /^(TOOL|DONE|FAIL) (\\w+)(?: (\\S+))?$/.exec(line);
  if (!m) return [{ kind: "assistant", ts, text: line }];
  if (m[1] === "TOOL") return [{ kind: "tool_call", ts, name: m[2], input: { command: "run " + m[3] }, toolUseId: m[3] }];
  return [{ kind: "tool_result", ts, toolUseId: m[2], content: m[1] === "DONE" ? "all good" : "exit 1", isError: m[1] === "FAIL" }];
} };`;

// Chunks 2.5 s apart (the viewer replays the recorded pauses at 1×): each state is on screen
// long enough to be seen.
const at = (s) => new Date(Date.UTC(2026, 0, 1, 10, 0, 0) + s * 1000).toISOString();
const ROWS = [
  { ts: at(0), stream: "stdout", chunk: "Checking the build\nTOOL bash c1\n", seq: 0 },
  { ts: at(2.5), stream: "stdout", chunk: "DONE c1\nTOOL bash c2\n", seq: 1 },
  { ts: at(5), stream: "stdout", chunk: "FAIL c2\nTOOL read c3\n", seq: 2 },
];

const card = (id) => `[data-testid=tool-card][data-tool-use-id=${id}]`;
/** The card's state and the id of the timeline item around it. */
const cardState = (page, id) =>
  page.$eval(card(id), (e) => ({ state: e.dataset.state, item: e.closest("[data-testid=timeline-item]").dataset.id, badge: e.querySelector(".badge").textContent }));

test("a running call turns into a completed one and a failed one, in place; one never answered says so", async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${server.url}/www/?sample=hermes_local&speed=1`);
  await page.waitForSelector("[data-testid=parser-status][data-state=ready]", { timeout: 30_000 });
  await page.setInputFiles("[data-testid=parser-file]", { name: "tools.cjs", mimeType: "text/javascript", buffer: Buffer.from(PARSER) });
  const ndjson = ROWS.map((r) => JSON.stringify(r)).join("\n") + "\n";
  await page.setInputFiles("[data-testid=log-file]", { name: "run.ndjson", mimeType: "application/x-ndjson", buffer: Buffer.from(ndjson) });
  await page.fill("[data-testid=custom-type]", "tools_local");
  await page.click("[data-testid=custom-run]");

  // c1 is running: the call has no result yet.
  await page.waitForSelector(`${card("c1")}[data-state=running]`, { timeout: 30_000 });
  const running = await cardState(page, "c1");
  assert.deepEqual(running, { state: "running", item: "e1", badge: "running" });
  assert.equal(await page.$eval(card("c1"), (e) => e.querySelector("[data-testid=tool-duration]").textContent), "");

  // Its result arrives: the same item (same id) is now completed; c2 runs.
  await page.waitForSelector(`${card("c1")}[data-state=done]`, { timeout: 10_000 });
  assert.deepEqual(await cardState(page, "c1"), { state: "done", item: "e1", badge: "done" });
  assert.equal(await page.$eval(card("c1"), (e) => e.querySelector("[data-testid=tool-duration]").textContent), "2.50 s");
  assert.equal(await page.textContent(`${card("c1")} [data-testid=tool-preview]`), "all good");
  // c2's call came in the same chunk as c1's result, but a Worker posts what it answered every
  // 4 ms: on a slow machine the two lines' answers reach the page in two frames (WebKit, a
  // fresh run here). The card comes with the second.
  await page.waitForSelector(card("c2"), { timeout: 10_000 });
  assert.equal((await cardState(page, "c2")).state, "running");

  // c2 fails: the card turns red and opens; the last call is never answered.
  await page.waitForSelector(`${card("c2")}[data-state=error]`, { timeout: 10_000 });
  const failed = await page.$eval(card("c2"), (e) => ({ open: e.querySelector("details").open, item: e.closest("[data-testid=timeline-item]").dataset.id }));
  assert.deepEqual(failed, { open: true, item: "e3" });
  await page.waitForFunction(() => window.parseboxViewer.runs.at(-1).done, null, { timeout: 10_000 });
  await page.waitForSelector(`${card("c3")}[data-state=unanswered]`, { timeout: 10_000 });
  assert.equal((await cardState(page, "c3")).badge, "never answered");

  // One card per call (results joined their calls), and the connector's ends.
  assert.equal(await page.$$eval("[data-testid=tool-card]", (els) => els.length), 3);
  const steps = await page.$$eval("[data-testid=transcript] [data-testid=timeline-item]", (els) =>
    els.map((e) => ({ id: e.dataset.id, type: e.dataset.type, first: e.hasAttribute("data-first"), last: e.hasAttribute("data-last") })),
  );
  assert.deepEqual(steps, [
    { id: "e0", type: "assistant", first: true, last: false },
    { id: "e1", type: "tool_call", first: false, last: false },
    { id: "e3", type: "tool_call", first: false, last: false },
    { id: "e5", type: "tool_call", first: false, last: true },
  ]);
  assert.deepEqual(errors, []);
  await page.close();
});
