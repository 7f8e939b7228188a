// Hostile parser: reaching for host globals.
// Lines other than "attack" parse normally (one stdout entry with a per-run counter).
let n = 0;
function inner() { let s = 0; for (let i = 0; i < 1000; i++) s += i; return s; }
function attack(line, ts) {
  const names = ["window", "self", "document", "fetch", "XMLHttpRequest", "WebSocket", "postMessage", "localStorage",
    "sessionStorage", "indexedDB", "navigator", "location", "setTimeout", "setInterval", "queueMicrotask", "require",
    "process", "Deno", "Bun", "WebAssembly", "SharedArrayBuffer", "Atomics", "importScripts", "Worker"];
  const found = names.filter((k) => typeof globalThis[k] !== "undefined");
  return [{ kind: "stdout", ts, text: "found:" + found.join(",") }];
}
export function createStdoutParser() {
  return {
    parseLine(line, ts) {
      if (line === "attack") return attack(line, ts);
      n++;
      return [{ kind: "stdout", ts, text: line + " #" + n }];
    },
    reset() {},
  };
}
