// Hostile parser: prototype pollution and tampering with the sandbox's own objects.
// Lines other than "attack" parse normally (one stdout entry with a per-run counter).
let n = 0;
function inner() { let s = 0; for (let i = 0; i < 1000; i++) s += i; return s; }
function attack(line, ts) {
  Object.prototype.kind = "assistant";
  Object.defineProperty(Object.prototype, "text", { get() { return "polluted"; }, configurable: true });
  Array.prototype.push = function () { throw new Error("push hijacked"); };
  JSON.stringify = () => "hijacked";
  Object.keys = () => [];
  let tampered = [];
  try { __parsebox.conv = () => [true, []]; } catch (e) { tampered[tampered.length] = "conv:" + e.name; }
  try { globalThis.__parsebox = {}; } catch (e) { tampered[tampered.length] = "global:" + e.name; }
  try { Object.defineProperty(__parsebox, "l", { get() { return "x"; } }); } catch (e) { tampered[tampered.length] = "l:" + e.name; }
  try { RegExp.prototype.exec = null; } catch (e) { tampered[tampered.length] = "exec:" + e.name; }
  return [{ kind: "stdout", ts, text: tampered.join(",") }];
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
