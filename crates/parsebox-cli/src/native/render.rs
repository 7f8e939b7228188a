//! The pretty transcript: one block per entry, coloured by kind the way Paperclip's
//! `paperclip run --watch` prints a run (assistant green, thinking grey, tool calls yellow with
//! their input, results cyan or red, errors red, token counts blue).

use parsebox_transcript::{DiffChangeType, TranscriptEntry};
use serde_json::Value;

use crate::native::style::{Painter, Style};

/// Renders one entry as terminal text (no trailing newline).
pub fn pretty(entry: &TranscriptEntry, p: &Painter) -> String {
    match entry {
        TranscriptEntry::Assistant(b) => p.paint(Style::Green, &format!("assistant: {}", b.text)),
        TranscriptEntry::Thinking(b) => p.paint(Style::Gray, &format!("thinking: {}", b.text)),
        TranscriptEntry::User(b) => p.paint(Style::Magenta, &format!("user: {}", b.text)),
        TranscriptEntry::Stdout(b) => p.paint(Style::Plain, &b.text),
        // stderr and system chunks keep their line breaks (SPEC §5); the one that ends the chunk
        // would print as an empty line.
        TranscriptEntry::Stderr(b) => p.paint(Style::Red, &format!("[stderr] {}", chomp(&b.text))),
        TranscriptEntry::System(b) => {
            format!(
                "{} {}",
                p.paint(Style::Yellow, "[system]"),
                p.paint(Style::Plain, chomp(&b.text))
            )
        }
        TranscriptEntry::Init(b) => {
            let session = if b.session_id.is_empty() {
                String::new()
            } else {
                format!(", session: {}", b.session_id)
            };
            p.paint(Style::Blue, &format!("init (model: {}{session})", b.model))
        }
        TranscriptEntry::ToolCall(b) => {
            let id = b
                .tool_use_id
                .as_deref()
                .map(|id| format!(" [{id}]"))
                .unwrap_or_default();
            let mut out = p.paint(Style::Yellow, &format!("tool_call: {}{id}", b.name));
            if let Some(input) = b.input.as_ref().filter(|v| !v.is_null()) {
                out.push('\n');
                out.push_str(&p.paint(Style::Gray, &json_pretty(&input.value())));
            }
            out
        }
        TranscriptEntry::ToolResult(b) => {
            let (style, body_style) = if b.is_error {
                (Style::Red, Style::Red)
            } else {
                (Style::Cyan, Style::Gray)
            };
            let mut head = String::from("tool_result");
            if b.is_error {
                head.push_str(" (error)");
            }
            if let Some(name) = &b.tool_name {
                head.push_str(&format!(": {name}"));
            }
            if !b.tool_use_id.is_empty() {
                head.push_str(&format!(" [{}]", b.tool_use_id));
            }
            let mut out = p.paint(style, &head);
            if !b.content.is_empty() {
                out.push('\n');
                out.push_str(&p.paint(body_style, &b.content));
            }
            out
        }
        TranscriptEntry::Result(b) => {
            let mut parts = Vec::new();
            if !b.text.is_empty() {
                parts.push(p.paint(Style::Green, "result:"));
                parts.push(p.paint(Style::Plain, &b.text));
            }
            if b.info.is_error || b.info.subtype.starts_with("error") || !b.info.errors.is_empty() {
                let subtype = if b.info.subtype.is_empty() {
                    "unknown"
                } else {
                    &b.info.subtype
                };
                parts.push(p.paint(
                    Style::Red,
                    &format!("result: subtype={subtype} is_error={}", b.info.is_error),
                ));
                if !b.info.errors.is_empty() {
                    parts.push(p.paint(
                        Style::Red,
                        &format!("errors: {}", b.info.errors.join(" | ")),
                    ));
                }
            }
            let cost = b.info.cost_usd.as_f64().unwrap_or(0.0);
            parts.push(p.paint(
                Style::Blue,
                &format!(
                    "tokens: in={} out={} cached={} cost=${cost:.6}",
                    b.info.input_tokens, b.info.output_tokens, b.info.cached_tokens
                ),
            ));
            parts.join("\n")
        }
        // Diff texts carry no +/- marker (the UI colours them); the gutter makes them readable
        // without colour too.
        TranscriptEntry::Diff(b) => {
            let (style, gutter) = match b.change_type {
                DiffChangeType::Add => (Style::Green, "+"),
                DiffChangeType::Remove => (Style::Red, "-"),
                DiffChangeType::Context => (Style::Plain, " "),
                DiffChangeType::Hunk => (Style::Cyan, ""),
                DiffChangeType::FileHeader => (Style::Bold, ""),
                DiffChangeType::Truncation => (Style::Gray, ""),
            };
            p.paint(style, &format!("{gutter}{}", b.text))
        }
    }
}

fn chomp(text: &str) -> &str {
    text.strip_suffix('\n')
        .map_or(text, |t| t.strip_suffix('\r').unwrap_or(t))
}

/// `JSON.stringify(value, null, 2)`.
fn json_pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
}
