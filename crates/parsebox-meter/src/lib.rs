//! parsebox-meter: the core's memory, counted where it is allocated.
//!
//! A budget that bounds memory must count the memory itself, not an estimate of it (SPEC §11:
//! "memory budgets count real bytes"). [`Counting`] wraps the program's allocator and keeps,
//! per thread, the bytes it really holds for the program: each block at the size the
//! allocator makes of the request ([`block_bytes`]: its header and rounding included), so a
//! one-character string costs what it costs. [`held_bytes`] reads that figure; [`Meter`] tells
//! how much one stretch of work left held.
//!
//! The layers above decide what to do with the figure (the live core's budgets,
//! `parsebox-live`); the binary that links them installs the allocator
//! (`#[global_allocator]`: the wasm core module, the tests). Without it nothing is counted, and
//! [`installed`] says so, so a budget never silently reads zero. A long vector the core keeps
//! grows an eighth at a time ([`reserve_gently`]), so no one call takes a budget far past itself.
//! In wasm the memory itself grows an eighth at a time too (`GrowAhead`, under the count).

mod counting;
#[cfg(target_arch = "wasm32")]
mod grow_ahead;
mod growth;

pub use counting::{
    block_bytes, buffer_bytes, held_bytes, installed, limit_thread_bytes, Counting,
};
#[cfg(target_arch = "wasm32")]
pub use grow_ahead::GrowAhead;
pub use growth::{reserve_gently, reserve_gently_deque, shrink_gently};

/// Bytes held by one stretch of work: [`Meter::start`] before it, [`Meter::held`] after.
#[derive(Clone, Copy, Debug)]
pub struct Meter {
    start: isize,
}

impl Meter {
    /// Starts counting from what this thread holds now.
    pub fn start() -> Self {
        Self {
            start: counting::thread_count(),
        }
    }

    /// What the work since [`start`](Self::start) left held: bytes allocated and kept less
    /// bytes freed (negative when it freed more than it kept).
    pub fn held(&self) -> isize {
        counting::thread_count().wrapping_sub(self.start)
    }
}

/// `f`, and the bytes it left held ([`Meter::held`]).
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, isize) {
    let meter = Meter::start();
    let out = f();
    (out, meter.held())
}
