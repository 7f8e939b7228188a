//! The core's memory grows in steps of an eighth of its size, not of one allocation.
//!
//! The system allocator of `wasm32-unknown-unknown` (dlmalloc) grows the wasm memory by what
//! the allocation it could not place needs, rounded up to 64 KiB. A long run the page opens at
//! once holds a few hundred MiB in the core, reached in thousands of such steps, and a
//! `memory.grow` is not cheap in the browser: a new `ArrayBuffer` for the memory each time, and
//! external memory the JavaScript collector is told of (a replay's profile showed `memory.grow`
//! and the collector as its largest parts, and the time to open a run grew faster than the run).
//! So when an allocation has grown the memory, a block of an eighth of the memory (1 MiB at
//! least) is taken and given back at once: dlmalloc grows the memory by that much in one step
//! and keeps the block as free space at its top, where the next allocations are placed.
//! Nothing is held longer: what the budgets count ([`parsebox_meter::Counting`], which wraps
//! this) never sees the block, and the pages a browser gives for a grown memory take no real
//! memory until they are written.

#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;

/// The least the memory grows by in one step, in bytes.
const MIN_STEP_BYTES: usize = 1 << 20;

/// A wasm page, in bytes.
const PAGE_BYTES: usize = 64 << 10;

thread_local! {
    /// The memory's size in pages when it was last seen: a larger size after an allocation
    /// says the allocation grew it.
    static SEEN_PAGES: Cell<usize> = const { Cell::new(0) };
}

/// See the module's doc.
pub struct GrowAhead<A> {
    inner: A,
}

impl<A> GrowAhead<A> {
    /// Grows the memory `inner` allocates from ahead of it.
    pub const fn new(inner: A) -> Self {
        Self { inner }
    }
}

impl<A: GlobalAlloc> GrowAhead<A> {
    /// After an allocation: if it grew the memory, grows it by a step more at once.
    fn after_allocation(&self) {
        let now = core::arch::wasm32::memory_size(0);
        let seen = SEEN_PAGES.try_with(Cell::get).unwrap_or(usize::MAX);
        if now <= seen {
            return;
        }
        let step = (now * PAGE_BYTES / 8).max(MIN_STEP_BYTES);
        if let Ok(layout) = Layout::from_size_align(step, 16) {
            // SAFETY: a block taken from `inner` and given back to it with the same layout.
            unsafe {
                let block = self.inner.alloc(layout);
                if !block.is_null() {
                    self.inner.dealloc(block, layout);
                }
            }
        }
        // (A step that could not be taken, the memory at its maximum, is not tried again
        // until the memory grows.)
        let _ = SEEN_PAGES.try_with(|s| s.set(core::arch::wasm32::memory_size(0)));
    }
}

// SAFETY: every call is forwarded to `inner` unchanged; a block taken ahead is given back
// before the call returns.
unsafe impl<A: GlobalAlloc> GlobalAlloc for GrowAhead<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is forwarded as it is.
        let p = unsafe { self.inner.alloc(layout) };
        self.after_allocation();
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        let p = unsafe { self.inner.alloc_zeroed(layout) };
        self.after_allocation();
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as `alloc`.
        unsafe { self.inner.dealloc(ptr, layout) };
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as `alloc`.
        let p = unsafe { self.inner.realloc(ptr, layout, new_size) };
        self.after_allocation();
        p
    }
}
