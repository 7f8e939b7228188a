//! Paperclip's `loadDynamicParser` and `invalidateDynamicParser` through the host core: one
//! row per state a type can be in when the page calls them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod sim;

use parsebox_host::{AdapterState, DynamicLoad, LoadResult};
use sim::{options, Sim};

const SOURCE: &str = "export function parseStdoutLine() {}";

/// The states a type can be in, each made the way a page gets there.
#[derive(Clone, Copy, Debug)]
enum Given {
    Unknown,
    Ready,
    Loading,
    LoadFailed,
    NoParser,
    Unregistered,
    Builtin,
    BuiltinLoadingOverride,
    BuiltinOverrideFailed,
    BuiltinUnderReady,
}

fn given(state: Given) -> Sim {
    let mut sim = Sim::new(options(|o| o.load_sources = true));
    let t = "t";
    let load = |sim: &mut Sim, result: LoadResult| {
        sim.pump();
        let (_, token) = sim.loads.last().cloned().unwrap();
        sim.host.handle_load_result(0.0, t, token, result);
        sim.pump();
    };
    let failed = || LoadResult::Failed("HTTP 500".into());
    match state {
        Given::Unknown => {}
        Given::Ready => {
            sim.host.register_source(0.0, t, SOURCE, None).unwrap();
        }
        Given::Loading => {
            sim.host.stateless_run(t).unwrap();
        }
        Given::LoadFailed => {
            sim.host.stateless_run(t).unwrap();
            load(&mut sim, failed());
        }
        Given::NoParser => {
            sim.host.stateless_run(t).unwrap();
            load(&mut sim, LoadResult::NoParser);
        }
        Given::Unregistered => {
            sim.host.register_source(0.0, t, SOURCE, None).unwrap();
            sim.host.unregister(t).unwrap();
        }
        Given::Builtin => {
            sim.host.register_builtin(t).unwrap();
        }
        Given::BuiltinLoadingOverride => {
            sim.host.register_builtin(t).unwrap();
            sim.host.reload(0.0, t).unwrap();
        }
        Given::BuiltinOverrideFailed => {
            sim.host.register_builtin(t).unwrap();
            sim.host.reload(0.0, t).unwrap();
            load(&mut sim, failed());
        }
        Given::BuiltinUnderReady => {
            sim.host.register_builtin(t).unwrap();
            sim.host.register_source(0.0, t, SOURCE, None).unwrap();
        }
    }
    sim.pump();
    sim
}

/// One row per state: what `loadDynamicParser` does next and whether it starts a load; what
/// `invalidateDynamicParser` returns (an external parser was ready) and what answers after it.
const ROWS: [(Given, DynamicLoad, bool, bool, AdapterState); 10] = {
    use AdapterState::{Builtin, Generic};
    use DynamicLoad::{NoParser, Ready, Wait};
    [
        (Given::Unknown, Wait, true, false, Generic),
        (Given::Ready, Ready, false, true, Generic),
        (Given::Loading, Wait, false, false, Generic),
        (Given::LoadFailed, NoParser, false, false, Generic),
        (Given::NoParser, NoParser, false, false, Generic),
        (Given::Unregistered, Wait, true, false, Generic),
        (Given::Builtin, Wait, true, false, Builtin),
        (Given::BuiltinLoadingOverride, Wait, false, false, Builtin),
        (
            Given::BuiltinOverrideFailed,
            NoParser,
            false,
            false,
            Builtin,
        ),
        (Given::BuiltinUnderReady, Ready, false, true, Builtin),
    ]
};

#[test]
fn load_dynamic_parser_by_state() {
    for (state, step, loads, _, _) in ROWS {
        let mut sim = given(state);
        let before = sim.loads.len();
        assert_eq!(sim.host.load_dynamic("t").unwrap(), step, "{state:?}");
        sim.pump();
        assert_eq!(sim.loads.len() > before, loads, "{state:?}: a load started");
    }
}

/// A type waited for becomes ready once its loader answers: what the page then hands over.
#[test]
fn a_waited_load_ends_ready() {
    let mut sim = given(Given::Unknown);
    assert_eq!(sim.host.load_dynamic("t").unwrap(), DynamicLoad::Wait);
    sim.pump();
    let (_, token) = sim.loads.last().cloned().unwrap();
    let source = LoadResult::Source {
        source: SOURCE.into(),
        contract_version: None,
    };
    sim.host.handle_load_result(0.0, "t", token, source);
    sim.pump();
    assert!(sim.host.is_idle());
    assert_eq!(sim.host.load_dynamic("t").unwrap(), DynamicLoad::Ready);
}

#[test]
fn invalidate_dynamic_parser_by_state() {
    for (state, _, _, was_ready, after) in ROWS {
        let mut sim = given(state);
        assert_eq!(
            sim.host.invalidate_dynamic("t").unwrap(),
            was_ready,
            "{state:?}"
        );
        sim.pump();
        let status = sim.host.status("t");
        assert_eq!(status.state, after, "{state:?}");
        assert!(!status.has_external, "{state:?}: nothing external is left");
        let before = sim.loads.len();
        assert_ne!(
            sim.host.load_dynamic("t").unwrap(),
            DynamicLoad::NoParser,
            "{state:?}: the next load starts afresh"
        );
        sim.pump();
        assert!(sim.loads.len() > before, "{state:?}: a new load");
    }
}

/// Both calls fail once the registry is disposed.
#[test]
fn dynamic_calls_after_dispose_fail() {
    let mut sim = given(Given::Ready);
    sim.host.dispose();
    assert!(sim.host.load_dynamic("t").is_err());
    assert!(sim.host.invalidate_dynamic("t").is_err());
}
