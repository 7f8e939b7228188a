//! The one way into a live core shared by a registry and its transcript builders: a call holds
//! it for its whole duration, a re-entrant call (a built-in parser or an engine callback calling
//! back into the registry) is refused ([`Reentered`]), and a dispose asked for from inside a call
//! happens when that call returns.

use std::cell::{Cell, RefCell, RefMut};
use std::fmt;
use std::ops::{Deref, DerefMut};

use crate::executor::Executor;
use crate::live::LiveCore;

/// A call into the core while another holds it: refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reentered;

impl fmt::Display for Reentered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "ParserRegistry called re-entrantly (from inside a built-in parser or an engine \
             callback): the call was refused",
        )
    }
}

impl std::error::Error for Reentered {}

/// The live core a registry and its builders share.
pub struct SharedCore<X: Executor> {
    shared: RefCell<LiveCore<X>>,
    dispose_later: Cell<bool>,
}

/// A call's hold on the core.
pub struct Entered<'a, X: Executor> {
    shared: RefMut<'a, LiveCore<X>>,
    dispose_later: &'a Cell<bool>,
}

impl<X: Executor> SharedCore<X> {
    /// Shares `live`.
    pub fn new(live: LiveCore<X>) -> Self {
        Self {
            shared: RefCell::new(live),
            dispose_later: Cell::new(false),
        }
    }

    /// Holds the core for one call.
    ///
    /// # Errors
    /// [`Reentered`] while another call holds it.
    pub fn enter(&self) -> Result<Entered<'_, X>, Reentered> {
        let shared = self.shared.try_borrow_mut().map_err(|_| Reentered)?;
        Ok(Entered {
            shared,
            dispose_later: &self.dispose_later,
        })
    }

    /// Now on the core's clock ([`Executor::now_ms`]); `None` while a call holds the core.
    pub fn now_ms(&self) -> Option<f64> {
        let live = self.shared.try_borrow().ok()?;
        Some(live.now_ms())
    }

    /// What `f` reads of the core; `None` while a call holds it to change it.
    pub fn read<R>(&self, f: impl FnOnce(&LiveCore<X>) -> R) -> Option<R> {
        let live = self.shared.try_borrow().ok()?;
        Some(f(&live))
    }

    /// Disposes the core now, or when the call under way returns.
    pub fn dispose(&self) {
        match self.enter() {
            Ok(mut s) => s.dispose(),
            Err(Reentered) => self.dispose_later.set(true),
        }
    }
}

impl<X: Executor> Deref for Entered<'_, X> {
    type Target = LiveCore<X>;
    fn deref(&self) -> &LiveCore<X> {
        &self.shared
    }
}

impl<X: Executor> DerefMut for Entered<'_, X> {
    fn deref_mut(&mut self) -> &mut LiveCore<X> {
        &mut self.shared
    }
}

impl<X: Executor> Drop for Entered<'_, X> {
    fn drop(&mut self) {
        if self.dispose_later.take() {
            self.shared.dispose();
        }
    }
}
