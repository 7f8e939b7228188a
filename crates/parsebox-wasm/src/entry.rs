//! The one way into the shared core: a call holds it for its whole duration, a re-entrant call
//! (a built-in parser or an engine callback calling back into the registry) is refused with a
//! named error, and a `dispose()` asked for from inside a call happens when that call returns.

use std::cell::{Cell, RefCell, RefMut};
use std::ops::{Deref, DerefMut};

use wasm_bindgen::JsValue;

use crate::boundary::into_error;
use parsebox_live::LiveCore;

use crate::js_executor::JsExecutor;

/// The live core of a registry, its engines of this thread behind the JS executor.
pub(crate) type Shared = LiveCore<JsExecutor>;

/// The core a `HostCore` and its builders share.
pub(crate) struct Core {
    shared: RefCell<Shared>,
    dispose_later: Cell<bool>,
}

/// A call's hold on the core.
pub(crate) struct Entered<'a> {
    shared: RefMut<'a, Shared>,
    dispose_later: &'a Cell<bool>,
}

impl Core {
    pub(crate) fn new(shared: Shared) -> Self {
        Self {
            shared: RefCell::new(shared),
            dispose_later: Cell::new(false),
        }
    }

    /// Holds the core for one call.
    ///
    /// # Errors
    /// `ParseboxReentrancyError` while another call holds it.
    pub(crate) fn enter(&self) -> Result<Entered<'_>, JsValue> {
        let shared = self.shared.try_borrow_mut().map_err(|_| {
            into_error(
                "ParseboxReentrancyError",
                "ParserRegistry called re-entrantly (from inside a built-in parser or an engine \
                 callback): the call was refused",
            )
        })?;
        Ok(Entered {
            shared,
            dispose_later: &self.dispose_later,
        })
    }

    /// Disposes the host now, or when the call under way returns.
    pub(crate) fn dispose(&self) {
        match self.enter() {
            Ok(mut s) => s.dispose(),
            Err(_) => self.dispose_later.set(true),
        }
    }
}

impl Deref for Entered<'_> {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.shared
    }
}

impl DerefMut for Entered<'_> {
    fn deref_mut(&mut self) -> &mut Shared {
        &mut self.shared
    }
}

impl Drop for Entered<'_> {
    fn drop(&mut self) {
        if self.dispose_later.take() {
            self.shared.dispose();
        }
    }
}
