//! After each call: one more slice of a rebuild under way, the timeline brought up to date with
//! the entries that changed, the frame asked for while something waits, and the [`Update`] the
//! page is handed (at a frame, whether there is anything to hand it at all).

use std::borrow::Cow;
use std::rc::Rc;

use parsebox_timeline::TimelineUpdate;
use parsebox_transcript::PushChange;

use super::update::{Changes, TimelineChanges, Update};
use super::LiveTranscript;
use crate::executor::Executor;
use crate::shared::SharedCore;

/// A rebuild slice's `go_on`: true until `slice_ms` has passed from now on the core's clock
/// (always, without one).
fn slice_limit<X: Executor>(
    core: Rc<SharedCore<X>>,
    slice_ms: Option<f64>,
) -> impl FnMut() -> bool {
    let deadline = slice_ms.and_then(|ms| Some(core.now_ms()? + ms));
    move || deadline.is_none_or(|d| core.now_ms().is_some_and(|now| now < d))
}

impl<X: Executor> LiveTranscript<X> {
    /// [`slice_limit`] on this transcript's core.
    pub(super) fn slice_limit(&self, slice_ms: Option<f64>) -> impl FnMut() -> bool {
        slice_limit(Rc::clone(self.inner.parser().core()), slice_ms)
    }

    /// Tells the core a call of the page begins: the parser time of what follows is summed
    /// against the registry's `callBudgetMs`.
    pub(super) fn begin_call(&self) {
        self.with_core(|s| s.host_mut().begin_call());
    }

    /// The registry's `rebuildSliceMs` (`None`: rebuilds run whole, or the registry is gone).
    pub(super) fn slice_ms(&self) -> Option<f64> {
        self.with_core(|s| s.host().options().rebuild_slice_ms)
            .flatten()
    }

    /// Whether a rebuild under way may re-parse its next slice now (the host core holds it
    /// while a Worker is far behind on the run's lines).
    fn may_go_on(&self) -> bool {
        let run = self.run();
        self.with_core(|s| s.host().rebuild_may_go_on(run))
            .unwrap_or(false)
    }

    /// Asks to be called back ([`apply_late`](Self::apply_late)) at the page's next frame.
    pub(super) fn call_back(&self) {
        let run = self.run();
        self.with_core(|s| s.call_builder_back(run));
    }

    /// [`changed`](Self::changed) after one more slice of a rebuild under way (if any), which
    /// may end the timeline's run (a rebuild of a finished run) or ask for the next frame.
    pub(super) fn going_on(
        &mut self,
        mut change: PushChange,
        at_frame: bool,
    ) -> (bool, Update<'_>) {
        if self.inner.is_rebuilding() && self.may_go_on() {
            let mut go_on = self.slice_limit(self.slice_ms());
            let resumed = self.inner.resume(&mut go_on);
            change.changed = if change.changed.is_empty() {
                resumed
            } else {
                change.changed.start.min(resumed.start)..self.inner.entries().len()
            };
        }
        if self.inner.is_rebuilding() {
            self.call_back();
        }
        let finishing =
            !self.inner.is_rebuilding() && std::mem::take(&mut self.finish_when_rebuilt);
        self.changed(change, finishing, at_frame)
    }

    /// Brings the timeline up to date with the transcript after `change` (at a frame of the
    /// page with `at_frame`; ends its run with `finishing`), asks for the next frame while it
    /// waits for lines still to be answered, and says what changed. The flag: at a frame,
    /// nothing did (the page need not hear of it).
    pub(super) fn changed(
        &mut self,
        change: PushChange,
        finishing: bool,
        at_frame: bool,
    ) -> (bool, Update<'_>) {
        let PushChange {
            dropped,
            changed: range,
        } = change;
        let base = self.inner.window_base();
        let inner = &self.inner;
        let mut lags = false;
        let frozen_changed = std::mem::take(&mut self.frozen_changed);
        let timeline = self.timeline.as_mut().map(|live| {
            let mut update = if at_frame {
                live.sync_at_frame(inner, range.clone(), finishing)
            } else {
                live.sync(inner, &dropped, range.clone(), finishing)
            };
            if !frozen_changed.is_empty() {
                // Frozen items a change of redaction changed: before every other, each once.
                update.changed.retain(|id| !frozen_changed.contains(id));
                update.changed.splice(0..0, frozen_changed);
            }
            lags = live.lags(inner);
            update
        });
        if lags {
            self.call_back();
        }
        // What left the window is let go of, and the call's measure ends, before what the page
        // is handed is made: that is the page's to free.
        let dropped = dropped.len();
        self.end_measured();
        // The builder's ranges count in its window; the page's, from the transcript's start.
        let frozen = self.inner.frozen_len();
        let window = self.inner.entries();
        let length = frozen + window.len();
        let from = if std::mem::take(&mut self.all_changed) {
            0
        } else {
            frozen + range.start
        };
        let quiet = at_frame
            && range.is_empty()
            && from > 0
            && dropped == 0
            && length == self.shown_len
            && timeline.as_ref().is_none_or(TimelineUpdate::is_empty);
        self.shown_len = length;
        let changes = Changes {
            dropped,
            from,
            length,
            entries: if from < frozen {
                self.inner.entries_from(from)
            } else {
                Cow::Borrowed(window.get(range).unwrap_or(&[]))
            },
        };
        let timeline = self
            .timeline
            .as_ref()
            .zip(timeline)
            .map(|(live, update)| TimelineChanges::of(live, &self.inner, update, window, base));
        (quiet, Update { changes, timeline })
    }
}
