// The timeline as a Node user of the package sees it: TranscriptBuilder keeps it in the core and
// every push/finish says which items changed, were added or removed, with the items themselves.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { initSync, ParserRegistry, TranscriptBuilder, ParseboxOptionsError } from "../../pkg/index.js";

const pkg = (p) => fileURLToPath(new URL(`../../pkg/${p}`, import.meta.url));
initSync({ module: readFileSync(pkg("parsebox_wasm_bg.wasm")), engine: readFileSync(pkg("parsebox_engine.wasm")) });

/**
 * A trusted test parser: `CALL <name> <id>`, `OK <id> <text>`, `FAIL <id> <text>`, `DIFF <text>`,
 * `USER <text>`; anything else is assistant text.
 */
const TOOLS = {
  parseStdoutLine(line, ts) {
    const [word, a = "", ...rest] = line.split(" ");
    const text = rest.join(" ");
    switch (word) {
      case "CALL":
        return [{ kind: "tool_call", ts, name: a, input: { command: text }, toolUseId: rest[0] }];
      case "OK":
      case "FAIL":
        return [{ kind: "tool_result", ts, toolUseId: a, content: text, isError: word === "FAIL" }];
      case "DIFF":
        return [{ kind: "diff", ts, changeType: "add", text: [a, ...rest].join(" ") }];
      case "USER":
        return [{ kind: "user", ts, text: [a, ...rest].join(" ") }];
      default:
        return [{ kind: "assistant", ts, text: line }];
    }
  },
};

function builder(options) {
  const registry = new ParserRegistry({ loadSource: null });
  registry.registerBuiltin("tools", TOOLS);
  return new TranscriptBuilder(registry, "tools", options);
}

let clock = 0;
const line = (text) => ({ ts: new Date(Date.UTC(2026, 0, 1, 10, 0, clock++)).toISOString(), stream: "stdout", chunk: `${text}\n` });
const ids = (items) => items.map((i) => i.id);

test("a pending call becomes completed, then failed by a later result, in one card with the same id", () => {
  const b = builder();
  let up = b.push(line("CALL Bash c1"));
  assert.deepEqual(ids(up.timeline.added), ["e0"]);
  assert.deepEqual(up.timeline.changed, []);
  const [card] = up.timeline.added;
  assert.equal(card.type, "tool_call");
  assert.equal(card.toolCall.status, "pending");
  assert.equal(card.toolCall.kind, "shell");
  assert.equal(card.toolCall.title, "Bash");
  assert.equal(card.toolCall.toolCallId, "c1");
  assert.deepEqual(card.toolCall.rawInput, { command: "c1" });
  assert.equal(card.isFirst, true);
  assert.equal(card.isLast, true);

  up = b.push(line("OK c1 1 passed"));
  assert.deepEqual(up.timeline, { changed: [up.timeline.changed[0]], added: [], removed: [] });
  assert.equal(up.timeline.changed[0].id, "e0");
  assert.equal(up.timeline.changed[0].toolCall.status, "completed");
  assert.deepEqual(up.timeline.changed[0].toolCall.content, [{ type: "content", text: "1 passed", isError: false }]);
  assert.deepEqual(up.timeline.changed[0].entries, [0, 1]);

  up = b.push(line("FAIL c1 exit 1"));
  assert.deepEqual(ids(up.timeline.changed), ["e0"]);
  const failed = up.timeline.changed[0].toolCall;
  assert.equal(failed.status, "failed");
  assert.deepEqual(
    failed.content.map((c) => c.isError),
    [false, true],
    "both results stay in the card; the latest decides",
  );
  assert.deepEqual(ids(b.timeline()), ["e0"]);
  assert.equal(b.entries().length, 3, "the transcript still has every entry");
});

test("ids stay stable across pushes; each push names only what it touched", () => {
  const b = builder();
  const seen = new Map();
  const feed = ["USER fix it", "looking", "CALL Read c1", "CALL Bash c2", "OK c2 ok", "DIFF +x", "OK c1 data", "done", "USER thanks"];
  for (const text of feed) {
    const { timeline } = b.push(line(text));
    for (const id of timeline.removed) assert.fail(`nothing is removed while the run grows (${id})`);
    for (const item of timeline.added) {
      assert.ok(!seen.has(item.id), `${item.id} added once`);
      seen.set(item.id, item);
    }
    for (const item of timeline.changed) {
      assert.ok(seen.has(item.id), `${item.id} changed after it was added`);
      seen.set(item.id, item);
    }
    // What the updates said is exactly the timeline.
    assert.deepEqual([...seen.values()].sort((x, y) => x.entries[0] - y.entries[0]), b.timeline());
  }
  const items = b.timeline();
  assert.deepEqual(ids(items), ["e0", "e1", "e2", "e3", "e7", "e8"]);
  assert.deepEqual(items[3].entries, [3, 4, 5], "the diff joins the card of the call it follows");
  assert.deepEqual(items[2].entries, [2, 6], "c1's result joins its card even after other items");
  assert.deepEqual(
    items.map((i) => [i.isFirst, i.isLast]),
    [
      [true, true],
      [true, false],
      [false, false],
      [false, false],
      [false, true],
      [true, true],
    ],
    "user messages break the connector",
  );
});

test("finish marks calls never answered as unanswered", () => {
  const b = builder();
  b.push(line("CALL Bash c1"));
  b.push(line("CALL Read c2"));
  b.push(line("OK c2 text"));
  b.push({ ts: new Date().toISOString(), stream: "stdout", chunk: "CALL Grep c3" }); // no newline: finish flushes it
  const up = b.finish();
  assert.deepEqual(ids(up.timeline.added), ["e3"]);
  assert.equal(up.timeline.added[0].toolCall.status, "unanswered");
  assert.deepEqual(ids(up.timeline.changed), ["e0", "e1"], "c1 turned unanswered; c2 stopped being last");
  assert.equal(up.timeline.changed[0].toolCall.status, "unanswered");
  assert.deepEqual(
    b.timeline().map((i) => i.toolCall.status),
    ["unanswered", "completed", "unanswered"],
  );
  assert.deepEqual(b.finish().timeline, { changed: [], added: [], removed: [] }, "a second finish changes nothing");
});

test("rebuild gives the same timeline as the incremental path", () => {
  const b = builder();
  for (const text of ["USER go", "CALL Bash c1", "DIFF +a", "OK c1 fine", "CALL Bash c2"]) b.push(line(text));
  b.finish();
  const incremental = b.timeline();
  const entries = b.rebuild();
  assert.equal(entries.length, 5);
  assert.deepEqual(b.timeline(), incremental);
});

test("the items each update carries are the items timeline() gives: every text, redaction switched included", () => {
  // The core sends an item's texts as references to the entries it sends beside them; what a
  // renderer receives must still be the whole item.
  const b = builder();
  const items = new Map();
  const follow = (up) => {
    for (const id of up.timeline.removed) items.delete(id);
    for (const item of [...up.timeline.changed, ...up.timeline.added]) items.set(item.id, item);
  };
  const script = ["USER look at /home/ada/x", "thinking in /home/ada", "CALL Edit c1 /home/ada/a.rs", "DIFF +ok", "DIFF +ok", "OK c1 edited /home/ada/a.rs", "FAIL c9 no call", "DIFF orphan line"];
  for (const text of script) follow(b.push(line(text)));
  follow(b.push({ ts: line("").ts, stream: "stderr", chunk: "warning at /home/ada\n" }));
  const check = () => assert.deepEqual([...items.values()].sort((x, y) => x.entries[0] - y.entries[0]), b.timeline());
  check();
  follow(b.setRedactHomePaths(true));
  check();
  assert.ok([...items.values()].every((i) => !JSON.stringify(i).includes("/home/ada")), "redaction reached every item");
  follow(b.push({ ts: line("").ts, stream: "stdout", chunk: "a partial last line" }));
  follow(b.finish());
  check();
  assert.equal(items.get("e2").toolCall.content.map((c) => c.text).join("|"), "+ok|+ok|edited /home/a**/a.rs");
});

test("a builder made with timeline: false keeps none", () => {
  const b = builder({ timeline: false });
  const up = b.push(line("CALL Bash c1"));
  assert.equal(up.timeline, undefined);
  assert.equal(up.entries.length, 1);
  assert.throws(() => b.timeline(), ParseboxOptionsError);
  assert.throws(() => builder({ timeline: "yes" }), ParseboxOptionsError);
});
