//! Long runs behave as short ones: what a line does (throw, catch) leaves nothing behind that a
//! later line pays for. boa 0.22 leaves values on its VM stack for an exception that leaves a
//! script uncaught, and for one a function catches until it returns: before the sandbox caught
//! each line's throw itself, a parser that threw on ~800 lines of a run failed every line after
//! with `budget_exceeded` ("maximum stack size"), and every rebuild replayed into the same wall.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod common;

use parsebox_sandbox::{ParserModule, SandboxOptions};
use parsebox_transcript::{FailureCode, TranscriptEntry};

const TS: &str = "2026-01-01T00:00:00.000Z";

fn text(entries: &[TranscriptEntry]) -> String {
    match entries {
        [e] => e.text().unwrap_or_default().to_owned(),
        other => panic!("expected one entry, got {other:?}"),
    }
}

fn on_thread(body: impl FnOnce() + Send + 'static) {
    common::on_stack(4 << 20, body);
}

/// Every other line of a 5,000-line run throws (from a nested call, from a native call, a
/// primitive): each of those fails as `threw`, and every other line is answered by the same
/// parser instance, its count intact.
#[test]
fn a_parser_that_throws_on_thousands_of_lines_keeps_answering_the_rest() {
    on_thread(|| {
        let source = r#"
            function deep(n, how) { if (n > 0) return deep(n - 1, how); if (how === 0) throw new Error("bad line"); if (how === 1) return JSON.parse("{"); throw 7; }
            export function createStdoutParser() {
              let ok = 0;
              return { parseLine(line, ts) {
                const i = Number(line);
                if (i % 2) deep(5, i % 3);
                ok++;
                return [{ kind: "stdout", ts, text: "ok " + ok }];
              } };
            }"#;
        let module = ParserModule::load(source, SandboxOptions::default()).unwrap();
        let mut run = module.new_run().unwrap();
        let mut answered = 0;
        for i in 0..5_000 {
            let out = run.parse_line(&i.to_string(), TS);
            if i % 2 == 1 {
                let err = out.expect_err("odd lines throw");
                assert_eq!(err.code, FailureCode::Threw, "line {i}: {err}");
            } else {
                answered += 1;
                let entries = out.unwrap_or_else(|e| panic!("line {i}: {e}")).entries;
                // The run itself does not reset after a failure (its caller does, SPEC §4): the
                // instance has counted every line it answered.
                assert_eq!(text(&entries), format!("ok {answered}"), "line {i}");
            }
        }
        assert_eq!(answered, 2_500);
        assert_eq!(
            run.diagnostics().failures.get(&FailureCode::Threw),
            Some(&2_500)
        );
        assert_eq!(
            run.diagnostics().rebuilds,
            0,
            "a throw never dirties the realm"
        );
    });
}

/// One call that catches 20,000 throws (from a function, and from a native `JSON.parse`) runs
/// to the end, as in Node.
#[test]
fn a_line_that_catches_thousands_of_throws_runs_to_the_end() {
    on_thread(|| {
        let source = r#"
            function f() { throw 1; }
            export function parseStdoutLine(line, ts) {
              let n = 0;
              for (let i = 0; i < 10000; i++) { try { f(); } catch { n++; } try { JSON.parse("{"); } catch { n++; } }
              return [{ kind: "stdout", ts, text: String(n) }];
            }"#;
        let opts = SandboxOptions {
            line_budget_ms: 60_000.0,
            clock_backstop_ms: 600_000.0,
            ..SandboxOptions::default()
        };
        let module = ParserModule::load(source, opts).unwrap();
        let mut run = module.new_run().unwrap();
        for _ in 0..3 {
            let entries = run.parse_line("x", TS).unwrap().entries;
            assert_eq!(text(&entries), "20000");
        }
    });
}

/// A long run of short lines stops keeping them for replay once replaying them would pass the
/// replay budget, as a run of long lines does: an engine's memory stays flat over a long run
/// (before, lines that each ran under one of boa's budget slices counted as no work, and a
/// trivial parser's engine grew by every line it saw, up to the byte cap). A rebuild after
/// that starts fresh, and says so (`state_lost`).
#[test]
fn a_long_run_of_short_lines_does_not_keep_every_line() {
    on_thread(|| {
        let source = r##"
            export function createStdoutParser() {
              let n = 0;
              return { parseLine(line, ts) {
                if (line === "spin") for (;;) {}
                n++;
                return [{ kind: "stdout", ts, text: "#" + n }];
              } };
            }"##;
        let module = ParserModule::load(source, SandboxOptions::default()).unwrap();
        let mut run = module.new_run().unwrap();
        for i in 0..20_000 {
            run.parse_line(&format!("line {i}"), TS).unwrap();
        }
        let err = run.parse_line("spin", TS).expect_err("the budget stops it");
        assert_eq!(err.code, FailureCode::BudgetExceeded);
        run.parse_line("after", TS).unwrap();
        let d = run.diagnostics();
        assert_eq!((d.rebuilds, d.state_lost), (1, 1), "{d:?}");
        assert!(d.replayed_lines < 10_000, "{d:?}");
    });
}
