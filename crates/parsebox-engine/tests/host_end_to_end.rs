//! The host core driven end to end with real sandboxed parsers: a tiny executor performs the
//! host's commands with [`Engine`]s, and for every parser of the compatibility corpus the
//! transcript lines it gives equal what the bare sandbox run gives on the same log through the
//! one line rule (the differential test against Node covers the sandbox itself). Then the
//! worker placement: lines answered generically at once, the real answers arriving late, equal.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::collections::HashMap;
use std::path::PathBuf;

use parsebox_engine::Engine;
use parsebox_host::{
    Command, EngineAnswer, EngineId, EngineOp, Host, HostOptions, HostPlacement, LineStep, RunId,
    Seq,
};
use parsebox_sandbox::SandboxOptions;
use parsebox_transcript::{LineOutcome, TranscriptEntry};

/// The executor: engines by id, the host's clock, late answers collected.
struct Executor {
    host: Host,
    engines: HashMap<EngineId, Engine>,
    late: HashMap<(RunId, Seq), Vec<TranscriptEntry>>,
    now: f64,
    /// The engines' `replay_budget_ms` (the sandbox's default when `None`).
    replay_budget_ms: Option<f64>,
}

impl Executor {
    fn new(placement: HostPlacement) -> Self {
        let options = HostOptions {
            host: placement,
            load_sources: false,
            // Generous: this test is about agreement, not deadlines on a loaded machine.
            line_budget_ms: 10_000.0,
            hard_deadline_ms: 20_000.0,
            ..HostOptions::default()
        };
        Self {
            host: Host::new(options).unwrap(),
            engines: HashMap::new(),
            late: HashMap::new(),
            now: 0.0,
            replay_budget_ms: None,
        }
    }

    fn run_ops(&mut self, engine: EngineId, ops: Vec<EngineOp>) -> Vec<(Seq, LineOutcome)> {
        let mut began = Vec::new();
        let (answers, reports) = self
            .engines
            .get_mut(&engine)
            .map(|e| {
                // Only the starts the host arms deadlines from are reported to it.
                let answers = e.run_ops(ops, |start| {
                    if start.report {
                        began.push(start.seq);
                    }
                });
                (answers, e.take_reports())
            })
            .unwrap_or_default();
        for seq in began {
            self.host.handle_began(self.now, engine, seq);
        }
        // What the page's core does with an engine instance's answers: decode the JSON text,
        // and take what they report besides (the engine module sends both as one JSON batch).
        let answers = answers
            .into_iter()
            .map(|(seq, o)| EngineAnswer {
                seq,
                outcome: o.map(|j| serde_json::from_str(j.as_str()).unwrap()),
                reports: reports
                    .iter()
                    .find(|(s, _)| *s == seq)
                    .map(|(_, r)| r.clone())
                    .unwrap_or_default(),
            })
            .collect();
        self.host.take_engine_answers(engine, answers)
    }

    /// Performs every queued command.
    fn pump(&mut self) {
        while let Some(command) = self.host.poll_command() {
            match command {
                Command::StartEngine { engine, source, .. } => {
                    let o = self.host.options().clone();
                    let defaults = SandboxOptions::default();
                    let options = SandboxOptions {
                        line_budget_ms: o.line_budget_ms,
                        init_budget_ms: o.init_budget_ms,
                        entry_limits: o.entry_limits.clone(),
                        replay_budget_ms: self
                            .replay_budget_ms
                            .unwrap_or(defaults.replay_budget_ms),
                        ..defaults
                    };
                    let started =
                        Engine::start(&source.unwrap_or_default(), options).map(|(e, entry)| {
                            self.engines.insert(engine, e);
                            entry
                        });
                    self.host.handle_engine_started(self.now, engine, started);
                }
                Command::Send { engine, ops } => {
                    let answers = self.run_ops(engine, ops);
                    for a in self.host.handle_answers(self.now, engine, answers) {
                        self.late.insert((a.run, a.seq), a.entries);
                    }
                }
                Command::EndEngine { engine } => {
                    self.engines.remove(&engine);
                }
                Command::LateAnswer {
                    run, seq, entries, ..
                } => {
                    self.late.insert((run, seq), entries);
                }
                Command::Load { .. } | Command::Notify { .. } => {}
            }
        }
    }

    /// One line of `run`: the entries shown now, and the seq of a line answered later.
    fn line(&mut self, run: RunId, line: &str, ts: &str) -> (Vec<TranscriptEntry>, Option<Seq>) {
        let step = self.host.parse_line(self.now, run, line, ts).unwrap();
        let out = match step {
            LineStep::Answered(entries) => (entries, None),
            LineStep::Deferred { seq, entries } => (entries, Some(seq)),
            LineStep::RunNow { engine, seq, ops } => {
                let answers = self.run_ops(engine, ops);
                let answered = self.host.handle_answers(self.now, engine, answers);
                let entries = answered
                    .into_iter()
                    .find(|a| a.seq == seq)
                    .map(|a| a.entries)
                    .expect("the synchronous line is answered");
                (entries, None)
            }
        };
        self.pump();
        out
    }
}

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/compat")
}

/// Non-empty, JS-trimmed lines of a sample log, each with its ts (as the corpus runner feeds
/// them).
fn sample_lines(log: &str) -> Vec<(String, String)> {
    log.split('\n')
        .map(|l| parsebox_transcript::jsstr::js_trim(l.strip_suffix('\r').unwrap_or(l)))
        .filter(|l| !l.is_empty())
        .enumerate()
        .map(|(i, l)| (l.to_owned(), format!("2026-01-01T00:00:{:02}.000Z", i % 60)))
        .collect()
}

fn on_big_stack(body: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(32 << 20)
        .spawn(body)
        .unwrap()
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e));
}

#[test]
fn the_inline_host_core_gives_what_the_sandbox_run_gives_for_every_corpus_parser() {
    on_big_stack(|| {
        let mut checked = 0;
        let mut dirs: Vec<_> = std::fs::read_dir(corpus()).unwrap().flatten().collect();
        dirs.sort_by_key(|d| d.file_name());
        for dir in dirs {
            let name = dir.file_name().to_string_lossy().into_owned();
            let Ok(source) = std::fs::read_to_string(dir.path().join("ui-parser.js")) else {
                continue;
            };
            let log = std::fs::read_to_string(dir.path().join("sample.log")).unwrap();
            let lines = sample_lines(&log);

            // The reference: the sandbox run alone, each line through the one line rule, reset
            // after a line that calls for it.
            let options = SandboxOptions {
                line_budget_ms: 10_000.0,
                ..SandboxOptions::default()
            };
            let module = parsebox_sandbox::ParserModule::load(&source, options).unwrap();
            let mut reference = module.new_run().unwrap();

            let mut ex = Executor::new(HostPlacement::Inline);
            ex.host.register_source(0.0, &name, &source, None).unwrap();
            ex.pump();
            let run_h = ex.host.create_run(&name).unwrap();

            for (line, ts) in &lines {
                let settled = reference.parse_line_settled(line, ts);
                if settled.resets_parser() {
                    let _ = reference.reset();
                }
                let (got, later) = ex.line(run_h, line, ts);
                assert_eq!(later, None, "{name}: inline answers at once");
                assert_eq!(got, settled.entries, "{name}: line {line:?}");
            }
            let d = ex.host.diagnostics(Some(&name));
            assert_eq!(d.lines_parsed, lines.len() as u64, "{name}");
            checked += 1;
        }
        assert!(checked >= 17, "only {checked} corpus parsers found");
    });
}

#[test]
fn worker_placement_answers_generically_now_and_the_same_entries_late() {
    on_big_stack(|| {
        let dir = corpus().join("claude-stream-json");
        let source = std::fs::read_to_string(dir.join("ui-parser.js")).unwrap();
        let lines = sample_lines(&std::fs::read_to_string(dir.join("sample.log")).unwrap());

        let mut inline = Executor::new(HostPlacement::Inline);
        inline
            .host
            .register_source(0.0, "c", &source, None)
            .unwrap();
        inline.pump();
        let run_i = inline.host.create_run("c").unwrap();

        let mut worker = Executor::new(HostPlacement::Worker);
        worker
            .host
            .register_source(0.0, "c", &source, None)
            .unwrap();
        worker.pump();
        let run_w = worker.host.create_run("c").unwrap();

        for (line, ts) in &lines {
            let (want, _) = inline.line(run_i, line, ts);
            let (now, seq) = worker.line(run_w, line, ts);
            let seq = seq.expect("a worker line is answered later");
            assert_eq!(
                now,
                vec![TranscriptEntry::stdout(ts, line)],
                "generic at once"
            );
            assert_eq!(worker.late.get(&(run_w, seq)), Some(&want), "{line:?}");
        }
        let d = worker.host.diagnostics(Some("c"));
        assert_eq!(d.lines_parsed, lines.len() as u64);
        assert_eq!(d.host.late_answers, lines.len() as u64);
    });
}

#[test]
fn a_parser_that_does_not_load_fails_the_type_with_its_load_error() {
    let mut ex = Executor::new(HostPlacement::Inline);
    ex.host
        .register_source(0.0, "bad", "\nexport function parseStdoutLine( {", None)
        .unwrap();
    ex.pump();
    let status = ex.host.status("bad");
    assert_eq!(status.state, parsebox_host::AdapterState::Failed);
    assert!(status.reason.unwrap().contains("syntax_error"));
    let run = ex.host.create_run("bad").unwrap();
    let (entries, later) = ex.line(run, "x", "t");
    assert_eq!(
        (entries, later),
        (vec![TranscriptEntry::stdout("t", "x")], None)
    );
}

/// A started parser's status says how its module is written and what it exports, as the
/// engine loaded it: the same shape `parsebox check`'s `module` check reports.
#[test]
fn a_ready_status_says_the_modules_format_and_exports() {
    on_big_stack(|| {
        // (type, source, entry point, contract exports, other exports)
        type Case<'a> = (&'a str, &'a str, &'a str, &'a [&'a str], &'a [&'a str]);
        let cases: [Case; 4] = [
            (
                "esm",
                "export function parseStdoutLine(l, ts) { return []; }",
                "parseStdoutLine",
                &["parseStdoutLine"],
                &[],
            ),
            (
                "both",
                "export const VERSION = 1;\nexport function createStdoutParser() { return { parseLine() { return []; } }; }\nexport function parseStdoutLine() { return []; }\nexport default parseStdoutLine;",
                "createStdoutParser",
                &["createStdoutParser", "parseStdoutLine"],
                &["VERSION", "default"],
            ),
            (
                "cjs",
                "module.exports = { parseStdoutLine(l, ts) { return []; } };",
                "parseStdoutLine",
                &["parseStdoutLine"],
                &[],
            ),
            (
                "cjs_factory",
                "exports.createStdoutParser = () => ({ parseLine() { return []; } });",
                "createStdoutParser",
                &["createStdoutParser"],
                &[],
            ),
        ];
        let mut ex = Executor::new(HostPlacement::Inline);
        for (name, source, entry, exports, others) in cases {
            ex.host.register_source(0.0, name, source, None).unwrap();
            ex.pump();
            let status = ex.host.status(name);
            assert_eq!(status.state, parsebox_host::AdapterState::Ready, "{name}");
            assert_eq!(status.entry_point.as_deref(), Some(entry), "{name}");
            let module = status.module.unwrap_or_else(|| panic!("{name}: a module"));
            let format = if name.starts_with("cjs") {
                "commonjs"
            } else {
                "esm"
            };
            assert_eq!(module.format, format, "{name}");
            assert_eq!(module.exports, exports, "{name}");
            assert_eq!(module.other_exports, others, "{name}");
        }
        // A type that failed has none.
        ex.host
            .register_source(0.0, "bad", "export function parseStdoutLine( {", None)
            .unwrap();
        ex.pump();
        assert_eq!(ex.host.status("bad").module, None);
    });
}

/// A line that leaves the engine's realm unusable makes the engine rebuild it and replay the
/// run's earlier lines; when those would not fit the replay budget, the parser starts over
/// without them. The transcript shows it (the counter restarts), and so do the host's
/// diagnostics: `stateLost`, never a silent loss.
#[test]
fn a_state_the_engine_could_not_restore_is_counted_by_the_host() {
    on_big_stack(|| {
        let source = "function down() { return down() + 1; }\n\
              export function createStdoutParser() { let k = 0; return {\n\
              parseLine(line, ts) { if (line === 'spin') down();\n\
              k++; let x = 0; for (let i = 0; i < 20000; i++) x += i;\n\
              return [{ kind: 'stdout', ts, text: String(k) }]; } }; }";
        for (replay_budget_ms, after, lost) in [(None, "11", 0), (Some(1.0), "1", 1)] {
            let mut ex = Executor::new(HostPlacement::Inline);
            ex.replay_budget_ms = replay_budget_ms;
            ex.host.register_source(0.0, "p", source, None).unwrap();
            ex.pump();
            let run = ex.host.create_run("p").unwrap();
            for _ in 0..10 {
                ex.line(run, "line", "t");
            }
            // boa's recursion limit stops the endless recursion at once (a loop now runs as long
            // as the work budget, 10 s here, allows): the realm is rebuilt before the next line.
            ex.line(run, "spin", "t");
            let (entries, _) = ex.line(run, "after", "t");
            let text = match &entries[..] {
                [TranscriptEntry::Stdout(t)] => t.text.clone(),
                other => panic!("{other:?}"),
            };
            assert_eq!(text, after, "replay budget {replay_budget_ms:?}");
            let d = ex.host.diagnostics(Some("p"));
            assert_eq!(
                d.host.state_lost, lost,
                "replay budget {replay_budget_ms:?}"
            );
        }
    });
}
