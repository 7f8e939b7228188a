// The built-in awkward lines `parsebox check` feeds every parser: what real agents print when
// something goes wrong (truncated JSON, colour codes, binary junk, decoder replacement
// characters, enormous lines). A parser must answer each without throwing or running over its
// budget; whatever it cannot make sense of should become a plain entry, not an exception. The
// native command feeds the same set (crates/parsebox-cli/src/native/awkward.rs); tests/js/cli-npx
// compares the two commands' reports, and cli-check compares the sets themselves.

/**
 * Every C0 control but LF and CR, DEL, C1 controls and a few non-characters, as a binary file
 * decoded as UTF-8 would put them in a line.
 */
function junk() {
  let s = "";
  for (let c = 0; c < 0x20; c++) if (c !== 0x0a && c !== 0x0d) s += String.fromCodePoint(c);
  for (let c = 0x7f; c < 0xa0; c++) s += String.fromCodePoint(c);
  return `${s}\u{FFFE}\u{FFFF}\u{10FFFF}PK\u{3}\u{4}`;
}

/**
 * The set, in the order they are fed (one fresh run): `{ label, text }`, each text as a parser
 * receives it (already trimmed, except `empty`).
 * @returns {{ label: string, text: string }[]}
 */
export function awkwardLines() {
  // 64 KB: a tool result carrying a whole source file is this size, and a parser must cope
  // with it within its budget (bigger lines mostly measure the engine's JSON.parse).
  const bigText = "lorem ipsum dolor sit amet ".repeat(2_400);
  const bigJson = `{"type":"assistant","message":{"content":[{"type":"text","text":"${"x".repeat(32_000)}"}]},"text":"${"y".repeat(16_000)}","item":{"type":"agent_message","text":"${"z".repeat(16_000)}"}}`;
  return [
    ["empty", ""],
    ["one character", "{"],
    ["truncated JSON object", '{"type":"assistant","message":{"content":[{"type":"text","te'],
    ["truncated JSON array", '[{"type":"tool_use","name":"Bash","input":{"command":"ls'],
    ["closing brackets", "}]}"],
    ["JSON null", "null"],
    ["JSON number", "42"],
    ["JSON string", '"just a string"'],
    ["JSON true", "true"],
    ["empty JSON object", "{}"],
    ["empty JSON array", "[]"],
    ["JSON with a null type", '{"type":null,"message":null,"content":null}'],
    ["JSON with a numeric type", '{"type":7,"item":7,"event":7}'],
    ["JSON with wrong field types", '{"type":"assistant","message":"not an object","content":42,"text":["a"]}'],
    ["JSON with __proto__", '{"__proto__":{"type":"assistant","polluted":true},"constructor":{"prototype":{"x":1}}}'],
    ["JSON with duplicate keys", '{"type":"result","type":"assistant","type":"nonsense"}'],
    // Beyond 2^53 and subnormal, but finite (agents do not print Infinity).
    ["JSON with extreme numbers", '{"type":"result","usage":{"input_tokens":12345678901234567890123,"output_tokens":-0},"total_cost_usd":5e-324}'],
    ["ANSI colour codes", "\x1b[1;31merror\x1b[0m: \x1b[33mwarning\x1b[39m \x1b[38;5;208mcolour\x1b[0m"],
    ["ANSI cursor control", "\x1b[2K\x1b[1G\x1b[?25l⠋ Thinking…\x1b[?25h\x1b]0;title\x07"],
    ["ANSI-wrapped JSON", '\x1b[32m{"type":"assistant","text":"hi"}\x1b[0m'],
    ["replacement characters", '\u{FFFD}\u{FFFD}{"type":"assi\u{FFFD}tant"}\u{FFFD}'],
    ["binary junk", junk()],
    ["NUL bytes", '\0\0\0{"type":"assistant"}\0'],
    ["lone carriage return", "progress 10%\rprogress 20%\rprogress 100%"],
    ["Unicode line separators", "a\u{2028}b\u{2029}c\u{85}d"],
    ["emoji and combining marks", "👩‍👩‍👧‍👦 🏳️‍🌈 e\u{301}\u{301}\u{301} \u{202E}reversed\u{202C} 𝓤𝓷𝓲𝓬𝓸𝓭𝓮"],
    ["HTML", "<script>alert(1)</script><img src=x onerror=alert(1)>"],
    ["huge plain line (65 KB)", bigText],
    ["huge JSON line (64 KB)", bigJson],
    ["many short tokens", "a ".repeat(10_000).trimEnd()],
    // Valid and deep, but within what boa's JSON.parse accepts (it stops at about 128 levels).
    ["deeply nested JSON", `${"[".repeat(64)}${"]".repeat(64)}`],
  ].map(([label, text]) => ({ label, text }));
}
