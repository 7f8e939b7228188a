//! Room for engines: at most [`HostOptions::max_live_engines`](crate::HostOptions) sandboxed
//! engines run at once. A browser gives a page room for a limited number of wasm memories
//! (Chromium: about 120), and each engine holds one, so a page with many adapter types ends
//! the least recently used idle engine (parks it) before it starts another. The parked type
//! stays `ready`; its next line starts a fresh engine that replays its runs' history, as a
//! recovery does, so its parser's state comes back.

use crate::engine::Engine;
use crate::{EngineId, Host, Placement};

impl Host {
    /// Before `engine` starts: while as many sandboxed engines as the limit allows are live
    /// (started, or starting with their memory), the least recently used idle one of another
    /// type is parked. Returns whether there is room; when no engine is idle there is none,
    /// and the start waits ([`Host::start_waiting`]): a line in flight is never cut.
    pub(crate) fn make_room_for_engine(&mut self, engine: EngineId) -> bool {
        let Some(starting) = self.engines.get(&engine) else {
            return false;
        };
        if starting.placement == Placement::Builtin {
            return true;
        }
        let adapter_type = starting.adapter_type.clone();
        let live = |id: &EngineId, e: &Engine| *id != engine && counts_as_live(e);
        loop {
            if self.live_engines(Some(engine)) < self.options.max_live_engines {
                return true;
            }
            let victim = self
                .engines
                .iter()
                .filter(|(id, e)| live(id, e) && e.is_idle() && e.adapter_type != adapter_type)
                .min_by_key(|(id, e)| (e.last_used, id.0))
                .map(|(id, _)| *id);
            let Some(victim) = victim else { return false };
            self.park(victim);
        }
    }

    /// Sandboxed engines that hold their memory (started, or starting with it), `except` one.
    pub(crate) fn live_engines(&self, except: Option<EngineId>) -> usize {
        self.engines
            .iter()
            .filter(|(id, e)| Some(**id) != except && counts_as_live(e))
            .count()
    }

    /// Ends idle `engine` to make room: its type's runs stay bound to it, so the type's next
    /// line can start them again from their history ([`Host::unpark`]).
    fn park(&mut self, engine: EngineId) {
        let Some(adapter_type) = self.engines.get(&engine).map(|e| e.adapter_type.clone()) else {
            return;
        };
        if let Some(a) = self.adapters.get_mut(&adapter_type) {
            if a.engine == Some(engine) {
                a.engine = None;
                a.parked = Some(engine);
                a.diag.host.parked += 1;
            }
        }
        self.end_engine(engine);
    }

    /// A line for a type whose engine was parked: a fresh engine starts and every run the
    /// parked one held is replayed into it (within the type's replay allowance, as after a
    /// recovery). Not a failure: it does not count toward giving the type up.
    pub(crate) fn unpark(&mut self, now_ms: f64, adapter_type: &str) {
        let Some(a) = self.adapters.get_mut(adapter_type) else {
            return;
        };
        let Some(old) = a.parked.take() else { return };
        let starts = a.starts_without_progress;
        self.restart(now_ms, adapter_type, old, true);
        if let Some(a) = self.adapters.get_mut(adapter_type) {
            a.starts_without_progress = starts;
        }
    }
}

/// Whether `e` counts toward [`HostOptions::max_live_engines`](crate::HostOptions): a sandboxed
/// engine with its memory (a built-in has none; a start waiting for room has none yet).
fn counts_as_live(e: &Engine) -> bool {
    e.placement != Placement::Builtin && !e.awaiting_room
}
