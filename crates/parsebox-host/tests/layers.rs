//! Built-in and external layers (Paperclip's overrides) through the host core: an external
//! parser answers over a built-in, the built-in answers again when it fails, finds no parser
//! or is unregistered.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod sim;

use parsebox_host::{AdapterState, Command, LineHost, LoadError, LoadResult, Placement};
use sim::{options, text, Sim, StartMode};

const SOURCE: &str = "export function parseStdoutLine() {}";

fn loaded(version: &str) -> LoadResult {
    LoadResult::Source {
        source: SOURCE.into(),
        contract_version: Some(version.into()),
    }
}

fn placement(sim: &Sim, t: &str) -> Option<Placement> {
    sim.host.status(t).placement
}

/// register, override, unregister restores the built-in, unregister again leaves the
/// generic parser; every step is a new generation and a change notification.
#[test]
fn an_external_parser_lies_over_the_builtin_until_unregistered() {
    let mut sim = Sim::new(options(|_| {}));
    sim.host.register_builtin("codex").unwrap();
    sim.pump();
    let g0 = sim.host.status("codex").generation;

    let s = sim
        .host
        .register_source(0.0, "codex", SOURCE, None)
        .unwrap();
    assert!(s.has_builtin);
    sim.pump();
    let s = sim.host.status("codex");
    assert_eq!(
        (s.state, s.placement),
        (AdapterState::Ready, Some(Placement::Inline))
    );
    assert!(s.generation > g0);

    sim.notified.clear();
    let s = sim.host.unregister("codex").unwrap();
    assert_eq!(s.state, AdapterState::Builtin);
    assert!(s.has_builtin && s.reason.is_none());
    sim.pump();
    assert_eq!(placement(&sim, "codex"), Some(Placement::Builtin));
    assert_eq!(
        sim.host.status("codex").host,
        LineHost::Inline,
        "a built-in answers in the page"
    );
    assert_eq!(sim.notified, ["codex"]);
    let run = sim.host.stateless_run("codex").unwrap();
    assert_eq!(text(&sim.parse(run, "a")), "a#1", "the built-in answers");

    let s = sim.host.unregister("codex").unwrap();
    assert_eq!(s.state, AdapterState::Generic);
    assert!(!s.has_builtin);
    assert!(s.reason.unwrap().starts_with("unregistered"));
    sim.pump();
    assert_eq!(text(&sim.parse(run, "b")), "b", "generic");
}

/// A built-in registered while an external parser answers goes beneath it.
#[test]
fn a_builtin_registered_later_goes_beneath() {
    let mut sim = Sim::with_parser(options(|_| {}), "codex");
    let g = sim.host.status("codex").generation;
    let s = sim.host.register_builtin("codex").unwrap();
    assert_eq!(
        (s.state, s.has_builtin, s.generation),
        (AdapterState::Ready, true, g)
    );
    sim.pump();
    assert_eq!(placement(&sim, "codex"), Some(Placement::Inline));
    assert_eq!(
        sim.host.unregister("codex").unwrap().state,
        AdapterState::Builtin
    );
}

/// An external parser that fails over a built-in (bad contract version, an engine that cannot
/// start) hands the type back to the built-in; the failure stays in the status as data.
#[test]
fn a_failing_override_falls_back_to_the_builtin() {
    let mut sim = Sim::new(options(|_| {}));
    sim.host.register_builtin("codex").unwrap();
    sim.pump();

    let s = sim
        .host
        .register_source(0.0, "codex", SOURCE, Some("2.0.0"))
        .unwrap();
    assert_eq!(s.state, AdapterState::Builtin);
    assert_eq!(s.error.unwrap().code, "unsupported_contract_version");
    assert!(s.reason.unwrap().ends_with("the built-in answers"));

    sim.start_mode = StartMode::Manual;
    sim.host
        .register_source(0.0, "codex", SOURCE, None)
        .unwrap();
    sim.pump();
    let engine = *sim.engine_ids().last().unwrap();
    sim.start_mode = StartMode::Ok;
    let error = LoadError::new("syntax_error", "Unexpected token");
    sim.host.handle_engine_started(0.0, engine, Err(error));
    sim.pump();
    let s = sim.host.status("codex");
    assert_eq!(s.state, AdapterState::Builtin);
    assert_eq!(s.error.unwrap().code, "syntax_error");
    assert_eq!(s.placement, Some(Placement::Builtin));
    let run = sim.host.stateless_run("codex").unwrap();
    assert_eq!(text(&sim.parse(run, "a")), "a#1");
}

/// `reload` of a built-in type asks the loader for an external parser while the built-in
/// keeps answering: no parser or a failed load leave the built-in; a source lies over it.
#[test]
fn reload_of_a_builtin_type_loads_an_override() {
    let mut sim = Sim::new(options(|o| o.load_sources = true));
    sim.host.register_builtin("codex").unwrap();
    sim.pump();
    let run = sim.host.stateless_run("codex").unwrap();

    let s = sim.host.reload(0.0, "codex").unwrap();
    assert_eq!(
        s.state,
        AdapterState::Builtin,
        "the built-in answers while loading"
    );
    sim.pump();
    let (_, token) = sim.loads.last().cloned().unwrap();
    assert!(!sim.host.is_idle());
    assert_eq!(text(&sim.parse(run, "a")), "a#1");
    let g = sim.host.status("codex").generation;
    let s = sim
        .host
        .handle_load_result(0.0, "codex", token, LoadResult::NoParser)
        .unwrap();
    assert_eq!(
        (s.state, s.generation),
        (AdapterState::Builtin, g),
        "nothing replaced"
    );
    assert!(sim.host.is_idle());

    sim.host.reload(0.0, "codex").unwrap();
    sim.pump();
    let (_, token) = sim.loads.last().cloned().unwrap();
    let failed = LoadResult::Failed("HTTP 500".into());
    let s = sim
        .host
        .handle_load_result(0.0, "codex", token, failed)
        .unwrap();
    assert_eq!(s.state, AdapterState::Builtin);
    assert_eq!(s.error.unwrap().code, "loader_failed");
    assert_eq!(
        text(&sim.parse(run, "b")),
        "b#2",
        "the same built-in run goes on"
    );
    assert!(
        sim.host.status("codex").has_external,
        "the failed override is remembered"
    );
    // Unregistering removes the failed override, not the built-in beneath it.
    let s = sim.host.unregister("codex").unwrap();
    assert_eq!(
        (s.state, s.has_builtin, s.has_external),
        (AdapterState::Builtin, true, false)
    );
    assert!(s.error.is_none());

    sim.host.reload(0.0, "codex").unwrap();
    sim.pump();
    let (_, token) = sim.loads.last().cloned().unwrap();
    sim.host
        .handle_load_result(0.0, "codex", token, loaded("1.0.0"))
        .unwrap();
    sim.pump();
    let s = sim.host.status("codex");
    assert_eq!(
        (s.state, s.placement),
        (AdapterState::Ready, Some(Placement::Inline))
    );
    assert!(s.error.is_none() && s.reason.is_none());
    let s = sim.host.unregister("codex").unwrap();
    assert_eq!(s.state, AdapterState::Builtin);
}

/// Unregistering a loaded type with nothing beneath leaves the generic parser and does not
/// load again on the next line, even where the registry loads sources.
#[test]
fn unregister_without_builtin_stays_generic() {
    let mut sim = Sim::new(options(|o| o.load_sources = true));
    let run = sim.host.stateless_run("hermes").unwrap();
    sim.pump();
    let (_, token) = sim.loads[0].clone();
    sim.host
        .handle_load_result(0.0, "hermes", token, loaded("1.0.0"))
        .unwrap();
    sim.pump();
    assert_eq!(sim.host.status("hermes").state, AdapterState::Ready);

    sim.host.unregister("hermes").unwrap();
    sim.pump();
    sim.log.clear();
    assert_eq!(text(&sim.parse(run, "x")), "x");
    sim.pump();
    assert!(!sim.log.iter().any(|c| matches!(c, Command::Load { .. })));
    assert_eq!(
        sim.host.reload(0.0, "hermes").unwrap().state,
        AdapterState::Loading
    );
}
