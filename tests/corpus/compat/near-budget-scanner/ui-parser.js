// Imitates an adapter that scans each tool output character by character in plain JavaScript
// (a hand-written tokenizer counting lines, words and ANSI escapes, with a rolling checksum):
// its work grows with the line. sample.log has one output line sized to take ~95 % of the
// default line budget (50 reference ms): issue 54, the same outcome idle and on a busy machine.
export function createStdoutParser() {
  let calls = 0;
  function scan(text) {
    let lines = 1, words = 0, escapes = 0, inWord = false, sum = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      sum = (sum * 33 + c) % 2147483647;
      if (c === 10) lines++;
      if (c === 27) escapes++;
      const space = c === 32 || c === 10 || c === 9;
      if (!space && !inWord) words++;
      inWord = !space;
    }
    return { lines, words, escapes, checksum: sum.toString(16) };
  }
  return {
    parseLine(line, ts) {
      if (!line.startsWith("{")) return [{ kind: "stdout", ts, text: line }];
      let event;
      try {
        event = JSON.parse(line);
      } catch {
        return [{ kind: "stdout", ts, text: line }];
      }
      calls++;
      if (event.type === "message") return [{ kind: "assistant", ts, text: String(event.text ?? "") }];
      if (event.type === "tool") {
        return [{ kind: "tool_call", ts, name: String(event.name), input: event.input ?? {}, toolUseId: "t" + calls }];
      }
      if (event.type === "output") {
        const text = String(event.text ?? "");
        const s = scan(text);
        return [{
          kind: "tool_result", ts, toolUseId: "t" + (calls - 1), toolName: String(event.name ?? ""),
          content: `${s.lines} lines, ${s.words} words, ${s.escapes} escapes, checksum ${s.checksum}`,
          isError: false,
        }];
      }
      return [{ kind: "system", ts, text: `event ${event.type}` }];
    },
    reset() {
      calls = 0;
    },
  };
}
