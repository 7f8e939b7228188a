//! The warm-up: one throwaway instance loads a small parser and parses a few lines, right
//! after the module compiles. Browsers compile a wasm function the first time it runs, and
//! loading the first parser runs most of the engine's code (boa's parser, compiler and
//! interpreter), so without it that first load spent ~4/5 of its time compiling. The compiled
//! code belongs to the module, so every later instance, on any thread, runs it at once.

use parsebox_protocol::{wire, EngineConfig, EngineOp, LineOp, RunId};

use crate::Session;

/// The warm-up parser, shaped like real ones.
const SOURCE: &str = include_str!("warm_up.js");

/// Lines of the shapes real logs have: JSON events with tool calls and results, a tool call
/// in text, plain output, a turn's result.
const LINES: [&str; 5] = [
    r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Looking at the files."},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls -la"}}]}}"#,
    r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"a.txt\nb.txt"}]}]}}"#,
    "Read(src/main.rs, 1, 40)",
    "plain output line",
    r#"{"type":"result","result":"done","usage":{"input_tokens":12},"cost":0.01}"#,
];

/// Loads the warm-up parser into `session`, an instance whose memory may grow to
/// `max_memory_bytes` (the page made it, and says how large), and parses its lines. Answers JSON
/// `[started, answers]`: what [`Session::start`] and [`Session::run`] answered, for a test to
/// check that the warm-up really loads and parses (one that failed would warm nothing, and
/// silently: the caller carries on either way).
pub fn warm_up(session: &mut Session, max_memory_bytes: u64) -> String {
    // Generous budgets (the code compiles as it first runs); limits that fit the memory.
    let config = EngineConfig {
        line_budget_ms: 1000.0,
        clock_backstop_ms: 5000.0,
        init_budget_ms: 5000.0,
        max_source_bytes: 64 << 10,
        max_line_bytes: 1 << 20,
        max_memory_bytes,
        screen_regexes: true,
        max_string_bytes: parsebox_protocol::DEFAULT_MAX_STRING_BYTES,
    };
    let started = session.start(
        SOURCE.as_bytes(),
        &serde_json::to_vec(&config).unwrap_or_default(),
    );
    let run = RunId(1);
    let new_run = EngineOp::NewRun {
        run,
        stateless: false,
    };
    let lines = (1..).zip(LINES).map(|(seq, line)| {
        EngineOp::Line(LineOp {
            seq,
            run,
            line: line.to_owned(),
            ts: "2026-01-01T00:00:00.000Z".to_owned(),
            replay: false,
        })
    });
    let ops: Vec<EngineOp> = std::iter::once(new_run).chain(lines).collect();
    let answers = session.run(&wire::ops_frame(&ops), true, |_| {});
    format!("[{started},{answers}]")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn the_warm_up_parser_loads_and_answers_each_line_with_entries() {
        let out: Value = serde_json::from_str(&warm_up(&mut Session::default(), 64 << 20)).unwrap();
        assert_eq!(out[0]["Ok"]["entryPoint"], "createStdoutParser");
        let answers = out[1].as_array().unwrap();
        assert_eq!(answers.len(), LINES.len());
        let kinds: Vec<&str> = answers
            .iter()
            .flat_map(|a| a[1]["Ok"].as_array().unwrap())
            .map(|e| e["kind"].as_str().unwrap())
            .collect();
        assert_eq!(
            kinds,
            [
                "assistant",
                "tool_call",
                "tool_result",
                "tool_call",
                "stdout",
                "result"
            ]
        );
    }
}
