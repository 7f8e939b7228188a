//! Adapter lifecycles (SPEC §4) through the host core: loads, stale tokens, engine starts,
//! contract versions, builtins, disposal.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod sim;

use parsebox_host::{
    AdapterState, Command, DynamicLoad, HostError, LoadError, LoadResult, Placement, RunId,
};
use sim::{options, text, Sim, StartMode, TS};

fn source() -> LoadResult {
    LoadResult::Source {
        source: "export function parseStdoutLine() {}".into(),
        contract_version: Some("1.2.0".into()),
    }
}

/// First use of an unknown type asks for its source; the line is answered generically at
/// once; a result with a superseded token is ignored; the type is `ready` only once its engine
/// reports it started, and only then is the viewer notified that it is ready.
#[test]
fn a_type_loads_and_stale_tokens_are_ignored() {
    let mut sim = Sim::new(options(|o| o.load_sources = true));
    sim.start_mode = StartMode::Manual;
    let run = sim.host.stateless_run("hermes").unwrap();
    assert_eq!(
        text(&sim.parse(run, "hello")),
        "hello",
        "generic while loading"
    );
    assert_eq!(sim.loads.len(), 1);
    let (_, first) = sim.loads[0].clone();
    assert_eq!(sim.host.status("hermes").state, AdapterState::Loading);

    // reload supersedes the first load: its result is ignored.
    sim.host.reload(0.0, "hermes").unwrap();
    sim.pump();
    let (_, second) = sim.loads[1].clone();
    assert_ne!(first, second);
    assert_eq!(
        sim.host.handle_load_result(0.0, "hermes", first, source()),
        None
    );
    assert_eq!(
        sim.host.handle_load_result(0.0, "hermes", 0, source()),
        None
    );
    assert_eq!(
        sim.host.handle_load_result(0.0, "other", second, source()),
        None
    );

    let status = sim
        .host
        .handle_load_result(0.0, "hermes", second, source())
        .unwrap();
    assert_eq!(
        status.state,
        AdapterState::Loading,
        "not ready before the engine starts"
    );
    sim.pump();
    let (engine, placement) = sim
        .log
        .iter()
        .find_map(|c| match c {
            Command::StartEngine {
                engine,
                placement,
                contract_version,
                ..
            } => {
                assert_eq!(contract_version.as_deref(), Some("1.2.0"));
                Some((*engine, *placement))
            }
            _ => None,
        })
        .expect("a StartEngine");
    assert_eq!(placement, Placement::Inline, "auto starts inline");
    // The same token again is stale now.
    assert_eq!(
        sim.host.handle_load_result(0.0, "hermes", second, source()),
        None
    );

    sim.notified.clear();
    sim.host
        .handle_engine_started(0.0, engine, Ok("createStdoutParser".into()));
    sim.pump();
    let status = sim.host.status("hermes");
    assert_eq!(status.state, AdapterState::Ready);
    assert_eq!(status.entry_point.as_deref(), Some("createStdoutParser"));
    assert_eq!(sim.notified, ["hermes"], "one notification");
    assert_eq!(
        text(&sim.parse(run, "hello")),
        "hello#1",
        "the parser answers now"
    );
}

/// What a source or a load can end in, as a table: (what, load result or start error,
/// state, reason contains).
#[test]
fn load_outcomes() {
    let err = LoadError {
        code: "syntax_error".into(),
        message: "unexpected token".into(),
        line: Some(3),
        column: Some(7),
    };
    let rows: Vec<(&str, LoadResult, Option<LoadError>, AdapterState, &str)> = vec![
        ("a 1.x source", source(), None, AdapterState::Ready, ""),
        (
            "major version 2",
            LoadResult::Source {
                source: "x".into(),
                contract_version: Some("2.0.0".into()),
            },
            None,
            AdapterState::Failed,
            "supports 1.x, the parser declares 2.x",
        ),
        (
            "unreadable version",
            LoadResult::Source {
                source: "x".into(),
                contract_version: Some("latest".into()),
            },
            None,
            AdapterState::Failed,
            "unreadable",
        ),
        (
            "no parser",
            LoadResult::NoParser,
            None,
            AdapterState::Generic,
            "no ui-parser",
        ),
        (
            "loader failed",
            LoadResult::Failed("GET /api/adapters/x/ui-parser.js: 500".into()),
            None,
            AdapterState::Failed,
            "500",
        ),
        (
            "engine could not load it",
            source(),
            Some(err),
            AdapterState::Failed,
            "syntax_error: unexpected token (line 3, column 7)",
        ),
    ];
    for (what, result, start_error, state, reason) in rows {
        let mut sim = Sim::new(options(|o| o.load_sources = true));
        if let Some(e) = start_error {
            sim.start_mode = StartMode::Fail(e);
        }
        let run = sim.host.create_run("t").unwrap();
        sim.pump();
        let token = sim.loads[0].1;
        sim.host.handle_load_result(0.0, "t", token, result);
        sim.pump();
        let status = sim.host.status("t");
        assert_eq!(status.state, state, "{what}");
        assert!(
            status.reason.as_deref().unwrap_or("").contains(reason),
            "{what}: {:?}",
            status.reason
        );
        let shown = sim.parse(run, "line");
        let want = if state == AdapterState::Ready {
            "line#1"
        } else {
            "line"
        };
        assert_eq!(text(&shown), want, "{what}");
        assert!(sim.notified.contains(&"t".to_owned()), "{what}: notified");
    }
}

/// A builtin answers synchronously through its own engine, which has no deadline.
#[test]
fn builtins_answer_synchronously() {
    let mut sim = Sim::new(options(|o| o.host = parsebox_host::HostPlacement::Worker));
    let status = sim.host.register_builtin("claude_local").unwrap();
    assert_eq!(status.state, AdapterState::Builtin);
    sim.pump();
    assert_eq!(
        sim.host.status("claude_local").placement,
        Some(Placement::Builtin)
    );
    let run = sim.host.stateless_run("claude_local").unwrap();
    assert_eq!(text(&sim.parse(run, "a")), "a#1");
    assert_eq!(text(&sim.parse(run, "b")), "b#2");
    assert_eq!(sim.host.poll_timeout(), None);
    assert_eq!(sim.host.status("claude_local").state, AdapterState::Builtin);
}

/// Dispose ends every engine; later page calls are typed errors; late engine events are
/// ignored without panicking.
#[test]
fn dispose_ends_engines_and_rejects_use() {
    let mut sim = Sim::with_parser(options(|_| {}), "a");
    sim.host.register_builtin("b").unwrap();
    sim.pump();
    let run = sim.host.stateless_run("a").unwrap();
    sim.parse(run, "x");
    let live = sim.engine_ids();
    assert_eq!(live.len(), 2);

    sim.host.dispose_type("b").unwrap();
    sim.pump();
    assert_eq!(
        sim.engine_ids().len(),
        1,
        "dispose_type ends that type's engine"
    );

    sim.host.dispose();
    sim.pump();
    assert!(sim.engines.is_empty(), "every engine ended");
    assert!(sim.host.is_disposed());
    assert_eq!(
        sim.host.parse_line(sim.now, run, "x", TS),
        Err(HostError::Disposed)
    );
    assert_eq!(sim.host.create_run("a"), Err(HostError::Disposed));
    assert_eq!(sim.host.register_builtin("a"), Err(HostError::Disposed));
    assert_eq!(
        HostError::Disposed.to_string(),
        "parser host used after dispose()"
    );
    // Events after dispose are harmless.
    assert!(sim
        .host
        .handle_answers(1.0, live[0], vec![(1, Ok(serde_json::json!([])))])
        .is_empty());
    assert!(sim.host.handle_engine_died(1.0, live[0], "late").is_empty());
    sim.host.handle_timeout(1e9);
    assert_eq!(sim.host.poll_command(), None);
}

/// Unknown and dropped runs are typed errors, never panics.
#[test]
fn unknown_runs_are_errors() {
    let mut sim = Sim::with_parser(options(|_| {}), "a");
    let nope = RunId(999);
    assert_eq!(
        sim.host.parse_line(sim.now, nope, "x", TS),
        Err(HostError::UnknownRun(nope))
    );
    assert_eq!(sim.host.reset_run(nope), Err(HostError::UnknownRun(nope)));
    let run = sim.host.create_run("a").unwrap();
    sim.host.drop_run(run).unwrap();
    assert_eq!(sim.host.drop_run(run), Err(HostError::UnknownRun(run)));
    assert!(HostError::UnknownRun(run)
        .to_string()
        .contains("does not exist"));
}

/// The load time is measured from `StartEngine` to the engine's `started` report, on the
/// executor's clock: what a viewer shows as "loaded in … ms".
#[test]
fn the_load_time_runs_from_start_to_started() {
    let mut sim = Sim::new(options(|o| o.host = parsebox_host::HostPlacement::Worker));
    sim.start_mode = StartMode::Manual;
    sim.now = 1000.0;
    sim.host
        .register_source(sim.now, "a", "source", None)
        .unwrap();
    sim.pump();
    let engine = *sim.engine_ids().last().unwrap();
    sim.host
        .handle_engine_started(1250.0, engine, Ok("parseStdoutLine".into()));
    assert_eq!(sim.host.diagnostics(Some("a")).load_ms, Some(250.0));
}

/// A page that starts with the trusted core alone: until the engine module is compiled a
/// sandboxed parser stays `loading` (its lines get the generic entry at once, no engine is
/// asked for), built-ins answer, and a Worker's start deadline does not run; once the module is
/// ready the held start is issued and the parser answers.
#[test]
fn parsers_wait_for_the_engine_module_while_generic_entries_and_builtins_answer() {
    for host in [
        parsebox_host::HostPlacement::Inline,
        parsebox_host::HostPlacement::Worker,
    ] {
        let mut sim = Sim::new(options(|o| o.host = host));
        sim.host.engine_module_pending();
        sim.host.register_builtin("builtin").unwrap();
        let status = sim
            .host
            .register_source(0.0, "h", "export function parseStdoutLine() {}", None)
            .unwrap();
        assert_eq!(status.state, AdapterState::Loading);
        sim.pump();
        assert_eq!(sim.starts, 1, "{host:?}: only the built-in started");
        assert_eq!(sim.host.poll_timeout(), None, "{host:?}: no start deadline");
        assert!(!sim.host.is_idle(), "{host:?}: idle() waits for the module");
        let run = sim.host.create_run("h").unwrap();
        assert_eq!(text(&sim.parse(run, "early")), "early");
        let b = sim.host.stateless_run("builtin").unwrap();
        assert_eq!(text(&sim.parse(b, "a")), "a#1");
        sim.advance(60_000.0);
        assert_eq!(sim.host.status("h").state, AdapterState::Loading);

        sim.host.handle_engine_module(sim.now, Ok(()));
        sim.pump();
        assert_eq!(sim.starts, 2, "{host:?}");
        assert_eq!(sim.host.status("h").state, AdapterState::Ready);
        let run = sim.host.create_run("h").unwrap();
        sim.parse(run, "x");
        sim.step();
        sim.pump();
        assert!(sim.host.is_idle(), "{host:?}");
    }
}

/// What a follower compares between renders to re-parse its run: the run's parser changes
/// when its type's source loads, fails or is replaced, not when lines are parsed.
#[test]
fn a_runs_parser_changes_with_its_types_parser_only() {
    let mut sim = Sim::new(options(|o| o.load_sources = true));
    sim.start_mode = StartMode::Manual;
    let run = sim.host.create_run("hermes").unwrap();
    let loading = sim.host.parser_of(run).unwrap();
    assert_eq!(loading.1, AdapterState::Loading);
    sim.parse(run, "a");
    sim.pump();
    assert_eq!(
        sim.host.parser_of(run),
        Some(loading),
        "a line changes nothing"
    );
    let (_, token) = sim.loads[0].clone();
    sim.host
        .handle_load_result(0.0, "hermes", token, LoadResult::Failed("HTTP 500".into()));
    let failed = sim.host.parser_of(run).unwrap();
    assert_eq!(failed.1, AdapterState::Failed);
    sim.host
        .register_source(0.0, "hermes", "export function parseStdoutLine() {}", None)
        .unwrap();
    let replaced = sim.host.parser_of(run).unwrap();
    assert_ne!(replaced, failed);
    assert!(replaced.0 > failed.0, "a new generation");
    sim.host.drop_run(run).unwrap();
    assert_eq!(sim.host.parser_of(run), None, "the run is gone");
}

/// `idle()` waits for every loader the executor was asked to run: a load a reload superseded
/// keeps the host busy until its (ignored) result comes back, and a result naming another type
/// does not count as it.
#[test]
fn idle_waits_for_a_superseded_load() {
    let mut sim = Sim::new(options(|o| o.load_sources = true));
    sim.start_mode = StartMode::Manual;
    sim.host.stateless_run("hermes").unwrap();
    sim.pump();
    sim.host.reload(0.0, "hermes").unwrap();
    sim.pump();
    let (_, first) = sim.loads[0].clone();
    let (_, second) = sim.loads[1].clone();
    let failed = || LoadResult::Failed("HTTP 404".into());
    sim.host.handle_load_result(0.0, "hermes", second, failed());
    assert_eq!(sim.host.status("hermes").state, AdapterState::Failed);
    assert!(!sim.host.is_idle(), "the first loader has not answered");
    sim.host.handle_load_result(0.0, "other", first, failed());
    assert!(
        !sim.host.is_idle(),
        "an answer for another type is not the first loader's"
    );
    assert_eq!(
        sim.host.handle_load_result(0.0, "hermes", first, source()),
        None
    );
    assert!(sim.host.is_idle());
    assert_eq!(
        sim.host.status("hermes").state,
        AdapterState::Failed,
        "stale: ignored"
    );
}

/// A parser replaced while it waited for the module starts once, with the new source.
#[test]
fn a_parser_replaced_while_waiting_for_the_engine_module_starts_once() {
    let mut sim = Sim::new(options(|o| o.host = parsebox_host::HostPlacement::Inline));
    sim.host.engine_module_pending();
    sim.host
        .register_source(0.0, "h", "export function parseStdoutLine() {}", None)
        .unwrap();
    sim.host
        .register_source(
            0.0,
            "h",
            "export function parseStdoutLine() { return null }",
            None,
        )
        .unwrap();
    sim.pump();
    sim.host.handle_engine_module(0.0, Ok(()));
    sim.pump();
    let started: Vec<_> = sim
        .log
        .iter()
        .filter_map(|c| match c {
            Command::StartEngine { source, .. } => Some(source.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        started,
        vec![Some(
            "export function parseStdoutLine() { return null }".to_owned()
        )]
    );
    assert_eq!(sim.host.status("h").state, AdapterState::Ready);
}

/// An engine module that cannot be loaded fails every sandboxed parser with an `engine_fault`
/// that says why (waiting ones and later ones alike); built-ins go on answering, and an
/// external parser over a built-in gives way to it.
#[test]
fn an_engine_module_that_fails_to_load_fails_sandboxed_parsers_with_the_reason() {
    let mut sim = Sim::new(options(|o| o.host = parsebox_host::HostPlacement::Inline));
    sim.host.engine_module_pending();
    sim.host
        .register_source(0.0, "h", "export function parseStdoutLine() {}", None)
        .unwrap();
    sim.host.register_builtin("b").unwrap();
    sim.host
        .register_source(0.0, "b", "export function parseStdoutLine() {}", None)
        .unwrap();
    sim.pump();
    sim.host
        .handle_engine_module(5.0, Err("GET /pkg/parsebox_engine.wasm: 404".into()));
    sim.pump();
    let h = sim.host.status("h");
    assert_eq!(h.state, AdapterState::Failed);
    let error = h.error.unwrap();
    assert_eq!(error.code, "engine_fault");
    assert!(
        error
            .message
            .contains("engine module could not be loaded: GET /pkg/parsebox_engine.wasm: 404"),
        "{}",
        error.message
    );
    assert_eq!(sim.host.status("b").state, AdapterState::Builtin);
    let b = sim.host.stateless_run("b").unwrap();
    assert_eq!(text(&sim.parse(b, "a")), "a#1");
    // A later registration fails the same way, at once.
    let later = sim
        .host
        .register_source(6.0, "later", "export function parseStdoutLine() {}", None)
        .unwrap();
    assert_eq!(later.state, AdapterState::Failed);
    assert_eq!(later.error.unwrap().code, "engine_fault");
    assert!(sim.host.is_idle());
}

/// With no loader (`loadSource: null`), `reload` asks for nothing: a type registered from
/// source starts again from it (a new generation), a type never registered stays generic, a
/// built-in keeps answering, and `loadDynamicParser` has no parser to wait for. Before, the
/// executor was asked to run a loader that did not exist, and the type failed with "loader
/// is not a function".
#[test]
fn reload_with_no_loader_restarts_a_registered_source_and_asks_for_nothing() {
    let mut sim = Sim::new(options(|_| {}));
    sim.host
        .register_source(0.0, "hermes", "export function parseStdoutLine() {}", None)
        .unwrap();
    sim.pump();
    let before = sim.host.status("hermes");
    assert_eq!(before.state, AdapterState::Ready);
    sim.host.reload(0.0, "hermes").unwrap();
    sim.pump();
    let after = sim.host.status("hermes");
    assert_eq!(after.state, AdapterState::Ready);
    assert!(after.generation > before.generation, "a fresh start");

    assert_eq!(
        sim.host.reload(0.0, "unknown").unwrap().state,
        AdapterState::Generic
    );
    sim.host.register_builtin("codex").unwrap();
    assert_eq!(
        sim.host.reload(0.0, "codex").unwrap().state,
        AdapterState::Builtin
    );
    assert_eq!(
        sim.host.load_dynamic("unknown").unwrap(),
        DynamicLoad::NoParser
    );
    sim.pump();
    assert!(
        sim.loads.is_empty(),
        "no loader was asked for: {:?}",
        sim.loads
    );
    assert!(sim.host.is_idle());
}
