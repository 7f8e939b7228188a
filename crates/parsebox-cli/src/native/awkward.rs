//! The built-in awkward lines `parsebox check` feeds every parser: what real agents print when
//! something goes wrong (truncated JSON, colour codes, binary junk, decoder replacement
//! characters, enormous lines). A parser must answer each without throwing or running over its
//! budget; whatever it cannot make sense of should become a plain entry, not an exception.

/// One awkward line and what it stands for.
#[derive(Clone, Debug)]
pub struct AwkwardLine {
    /// Short label for the report.
    pub label: &'static str,
    /// The line (already trimmed, as a parser would receive it, except `empty`).
    pub text: String,
}

fn line(label: &'static str, text: impl Into<String>) -> AwkwardLine {
    AwkwardLine {
        label,
        text: text.into(),
    }
}

/// The set, in the order they are fed (one fresh run).
pub fn awkward_lines() -> Vec<AwkwardLine> {
    // Every C0 control but LF and CR, DEL, C1 controls and a few non-characters, as a binary
    // file decoded as UTF-8 would put them in a line.
    let junk: String = (0u32..0x20)
        .filter(|c| *c != 0x0a && *c != 0x0d)
        .chain(0x7f..0xa0)
        .filter_map(char::from_u32)
        .chain([
            '\u{FFFE}',
            '\u{FFFF}',
            '\u{10FFFF}',
            'P',
            'K',
            '\u{3}',
            '\u{4}',
        ])
        .collect();
    // 64 KB: a tool result carrying a whole source file is this size, and a parser must cope
    // with it within its budget (bigger lines mostly measure the engine's JSON.parse).
    let big_text = "lorem ipsum dolor sit amet ".repeat(2_400);
    let big_json = format!(
        r#"{{"type":"assistant","message":{{"content":[{{"type":"text","text":"{}"}}]}},"text":"{}","item":{{"type":"agent_message","text":"{}"}}}}"#,
        "x".repeat(32_000),
        "y".repeat(16_000),
        "z".repeat(16_000)
    );
    vec![
        line("empty", ""),
        line("one character", "{"),
        line(
            "truncated JSON object",
            r#"{"type":"assistant","message":{"content":[{"type":"text","te"#,
        ),
        line(
            "truncated JSON array",
            r#"[{"type":"tool_use","name":"Bash","input":{"command":"ls"#,
        ),
        line("closing brackets", "}]}"),
        line("JSON null", "null"),
        line("JSON number", "42"),
        line("JSON string", r#""just a string""#),
        line("JSON true", "true"),
        line("empty JSON object", "{}"),
        line("empty JSON array", "[]"),
        line(
            "JSON with a null type",
            r#"{"type":null,"message":null,"content":null}"#,
        ),
        line(
            "JSON with a numeric type",
            r#"{"type":7,"item":7,"event":7}"#,
        ),
        line(
            "JSON with wrong field types",
            r#"{"type":"assistant","message":"not an object","content":42,"text":["a"]}"#,
        ),
        line(
            "JSON with __proto__",
            r#"{"__proto__":{"type":"assistant","polluted":true},"constructor":{"prototype":{"x":1}}}"#,
        ),
        line(
            "JSON with duplicate keys",
            r#"{"type":"result","type":"assistant","type":"nonsense"}"#,
        ),
        line(
            // Beyond 2^53 and subnormal, but finite (agents do not print Infinity).
            "JSON with extreme numbers",
            r#"{"type":"result","usage":{"input_tokens":12345678901234567890123,"output_tokens":-0},"total_cost_usd":5e-324}"#,
        ),
        line(
            "ANSI colour codes",
            "\x1b[1;31merror\x1b[0m: \x1b[33mwarning\x1b[39m \x1b[38;5;208mcolour\x1b[0m",
        ),
        line(
            "ANSI cursor control",
            "\x1b[2K\x1b[1G\x1b[?25l⠋ Thinking…\x1b[?25h\x1b]0;title\x07",
        ),
        line(
            "ANSI-wrapped JSON",
            "\x1b[32m{\"type\":\"assistant\",\"text\":\"hi\"}\x1b[0m",
        ),
        line(
            "replacement characters",
            "\u{FFFD}\u{FFFD}{\"type\":\"assi\u{FFFD}tant\"}\u{FFFD}",
        ),
        line("binary junk", junk),
        line("NUL bytes", "\0\0\0{\"type\":\"assistant\"}\0"),
        line(
            "lone carriage return",
            "progress 10%\rprogress 20%\rprogress 100%",
        ),
        line("Unicode line separators", "a\u{2028}b\u{2029}c\u{85}d"),
        line(
            "emoji and combining marks",
            "👩‍👩‍👧‍👦 🏳️‍🌈 e\u{301}\u{301}\u{301} \u{202E}reversed\u{202C} 𝓤𝓷𝓲𝓬𝓸𝓭𝓮",
        ),
        line(
            "HTML",
            "<script>alert(1)</script><img src=x onerror=alert(1)>",
        ),
        line("huge plain line (65 KB)", big_text),
        line("huge JSON line (64 KB)", big_json),
        line(
            "many short tokens",
            "a ".repeat(10_000).trim_end().to_owned(),
        ),
        // Valid and deep, but within what boa's JSON.parse accepts (it stops at about 128 levels).
        line(
            "deeply nested JSON",
            format!("{}{}", "[".repeat(64), "]".repeat(64)),
        ),
    ]
}
