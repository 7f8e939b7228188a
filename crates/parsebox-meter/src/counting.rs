//! The counting allocator: every block the wrapped allocator gives or takes back is added to or
//! taken from this thread's count, at the size the allocator really uses for it.

#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

thread_local! {
    /// This thread's held bytes. Signed: a block freed on another thread than the one that
    /// allocated it is taken from the freeing thread's count (the core runs in one thread).
    static HELD: Cell<isize> = const { Cell::new(0) };
}

thread_local! {
    /// The most this thread may hold ([`limit_thread_bytes`]): an allocation past it fails.
    static LIMIT: Cell<isize> = const { Cell::new(isize::MAX) };
}

/// Set by the first block a [`Counting`] allocator gives.
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// A global allocator that counts what `A` holds. Install it with
/// `#[global_allocator] static ALLOC: Counting<std::alloc::System> = Counting::new(std::alloc::System);`.
pub struct Counting<A> {
    inner: A,
}

impl<A> Counting<A> {
    /// Counts what `inner` holds.
    pub const fn new(inner: A) -> Self {
        Self { inner }
    }
}

/// Whether a block of `bytes` more would take this thread past its limit.
fn over_limit(bytes: usize) -> bool {
    let bytes = isize::try_from(bytes).unwrap_or(isize::MAX);
    let held = HELD.try_with(Cell::get).unwrap_or(0);
    let limit = LIMIT.try_with(Cell::get).unwrap_or(isize::MAX);
    held.saturating_add(bytes) > limit
}

/// Limits what this thread may hold to `bytes` (from now; what it holds already counts): an
/// allocation that would take it past fails as an allocation the system cannot give fails
/// (Rust then says `memory allocation of N bytes failed` and aborts the process). An engine
/// process sets its engine's thread to the engine's `maxMemoryBytes`, as a page's engine
/// instance has a maximum memory.
pub fn limit_thread_bytes(bytes: usize) {
    let bytes = isize::try_from(bytes).unwrap_or(isize::MAX);
    let _ = LIMIT.try_with(|l| l.set(bytes));
}

fn add(bytes: usize) {
    let bytes = isize::try_from(bytes).unwrap_or(isize::MAX);
    // `try_with`: never panic inside the allocator, even while a thread is ending.
    let _ = HELD.try_with(|h| h.set(h.get().wrapping_add(bytes)));
}

fn sub(bytes: usize) {
    let bytes = isize::try_from(bytes).unwrap_or(isize::MAX);
    let _ = HELD.try_with(|h| h.set(h.get().wrapping_sub(bytes)));
}

// SAFETY: every call is forwarded to `inner` unchanged; only the counts are added.
unsafe impl<A: GlobalAlloc> GlobalAlloc for Counting<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if over_limit(block_bytes(layout.size(), layout.align())) {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller's contract is forwarded as it is.
        let p = unsafe { self.inner.alloc(layout) };
        if !p.is_null() {
            INSTALLED.store(true, Ordering::Relaxed);
            add(block_bytes(layout.size(), layout.align()));
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if over_limit(block_bytes(layout.size(), layout.align())) {
            return std::ptr::null_mut();
        }
        // SAFETY: as `alloc`.
        let p = unsafe { self.inner.alloc_zeroed(layout) };
        if !p.is_null() {
            INSTALLED.store(true, Ordering::Relaxed);
            add(block_bytes(layout.size(), layout.align()));
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as `alloc`.
        unsafe { self.inner.dealloc(ptr, layout) };
        sub(block_bytes(layout.size(), layout.align()));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let (old, new) = (
            block_bytes(layout.size(), layout.align()),
            block_bytes(new_size, layout.align()),
        );
        if new > old && over_limit(new - old) {
            return std::ptr::null_mut();
        }
        // SAFETY: as `alloc`.
        let p = unsafe { self.inner.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            sub(block_bytes(layout.size(), layout.align()));
            add(block_bytes(new_size, layout.align()));
        }
        p
    }
}

/// What this thread holds now through the installed [`Counting`] allocator, in bytes (0 when
/// none is installed: see [`installed`]).
pub fn held_bytes() -> usize {
    usize::try_from(thread_count()).unwrap_or(0)
}

/// This thread's count as it stands: below 0 when the thread freed more than it allocated
/// (blocks another thread allocated), which only differences of two readings make sense of.
pub(crate) fn thread_count() -> isize {
    HELD.try_with(Cell::get).unwrap_or(0)
}

/// Whether a [`Counting`] allocator is installed (it has given a block).
pub fn installed() -> bool {
    INSTALLED.load(Ordering::Relaxed)
}

/// The bytes a heap buffer (a `String`'s, a `Vec<u8>`'s) of `capacity` bytes takes at the
/// allocator ([`block_bytes`]): none while it has allocated nothing.
pub const fn buffer_bytes(capacity: usize) -> usize {
    if capacity == 0 {
        0
    } else {
        block_bytes(capacity, 1)
    }
}

/// The bytes the allocator really takes for a block of `size` bytes aligned to `align`: its
/// header and rounding included. On wasm32 that is Rust's dlmalloc (a 4-byte header, 8-byte
/// granules, 16 bytes at least); elsewhere glibc's malloc (an 8-byte header, 16-byte granules,
/// 32 bytes at least; blocks of 128 KiB and more are whole pages of their own).
pub const fn block_bytes(size: usize, align: usize) -> usize {
    #[cfg(target_arch = "wasm32")]
    const fn header_granule_min() -> (usize, usize, usize) {
        (4, 8, 16)
    }
    #[cfg(not(target_arch = "wasm32"))]
    const fn header_granule_min() -> (usize, usize, usize) {
        (8, 16, 32)
    }
    let (header, granule, min) = header_granule_min();
    // An alignment the allocator's granule does not give is had by over-asking.
    let size = if align > granule {
        size.saturating_add(align)
    } else {
        size
    };
    let padded = size.saturating_add(header + granule - 1) & !(granule - 1);
    #[cfg(not(target_arch = "wasm32"))]
    if padded >= 128 << 10 {
        return padded.saturating_add(4095) & !4095;
    }
    if padded < min {
        min
    } else {
        padded
    }
}

#[cfg(test)]
mod tests {
    use super::block_bytes;

    #[test]
    fn small_blocks_cost_the_allocators_minimum() {
        #[cfg(not(target_arch = "wasm32"))]
        {
            assert_eq!(block_bytes(1, 1), 32);
            assert_eq!(block_bytes(24, 8), 32);
            assert_eq!(block_bytes(25, 8), 48);
        }
        #[cfg(target_arch = "wasm32")]
        {
            assert_eq!(block_bytes(1, 1), 16);
            assert_eq!(block_bytes(12, 4), 16);
            assert_eq!(block_bytes(13, 4), 24);
        }
    }
}
