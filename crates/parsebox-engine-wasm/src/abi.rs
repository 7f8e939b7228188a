//! The raw C ABI of the engine module (wasm32 only): exports, imports, the getrandom hook and
//! the instance's one [`Session`]. The crate docs describe the contract; everything here only
//! moves bytes between the page and the session.
//!
//! The instance is single-threaded and its exports are not re-entrant: a call from inside
//! `parsebox_began` back into `parsebox_start`/`parsebox_run` finds the session borrowed and
//! traps (engine.js refuses it before it gets here).

use std::alloc::{alloc, dealloc, GlobalAlloc, Layout, System};
use std::cell::RefCell;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use parsebox_protocol::LineStart;

use crate::{Hooks, Session};

#[link(wasm_import_module = "env")]
extern "C" {
    /// A monotonic clock in milliseconds (`performance.now()`).
    fn parsebox_now_ms() -> f64;
    /// A live line (`replay: false`) is about to start, after any realm work of the engine's
    /// own; `report` is 1 when the host needs to know (it arms the line's deadline from it: the
    /// first of a batch, or one after that realm work), else 0.
    fn parsebox_began(seq: f64, report: u32);
    /// Fills `len` bytes at `ptr` with random bytes; 0 on success.
    fn parsebox_random(ptr: *mut u8, len: usize) -> u32;
}

fn began(start: LineStart) {
    #[allow(clippy::cast_precision_loss)]
    let seq = start.seq as f64;
    // SAFETY: an imported function without preconditions.
    unsafe { parsebox_began(seq, u32::from(start.report)) }
}

fn now_ms() -> f64 {
    // SAFETY: an imported function without preconditions.
    unsafe { parsebox_now_ms() }
}

/// The linear memory the instance holds now, in bytes (saturating at 4 GiB).
fn memory_bytes() -> usize {
    core::arch::wasm32::memory_size::<0>().saturating_mul(65536)
}

thread_local! {
    static SESSION: RefCell<Session> = RefCell::new(Session::new(Hooks {
        clock: Some(now_ms),
        heap_probe: Some(memory_bytes),
    }));
    static RESULT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The getrandom 0.4 `custom` backend (build.sh sets `getrandom_backend="custom"`): boa's
/// random numbers come from the page's `crypto.getRandomValues`.
///
/// # Safety
/// `dest` points to `len` writable bytes (getrandom's contract).
#[no_mangle]
unsafe extern "Rust" fn __getrandom_v03_custom(
    dest: *mut u8,
    len: usize,
) -> Result<(), getrandom::Error> {
    // SAFETY: the import writes exactly `len` bytes at `dest`, which getrandom made writable.
    match unsafe { parsebox_random(dest, len) } {
        0 => Ok(()),
        _ => Err(getrandom::Error::new_custom(1)),
    }
}

/// While set (inside [`parsebox_prepare`]), freed memory is zeroed, so the memory image
/// `build.sh` keeps holds only what is live: garbage would be shipped in the module and written
/// into every instance.
static ZERO_FREED: AtomicBool = AtomicBool::new(false);

/// Bytes of the last allocation the instance's memory could not hold (0: none). Any failed
/// allocation ends in a trap (Rust aborts, or the page refuses a buffer it could not get), so
/// the page reads it after a trap ([`parsebox_alloc_failed`]) to tell out-of-memory from any
/// other fault.
static FAILED_ALLOC: AtomicUsize = AtomicUsize::new(0);

/// `ptr`, after noting a failed allocation of `size` bytes when it is null.
fn noted(ptr: *mut u8, size: usize) -> *mut u8 {
    if ptr.is_null() {
        FAILED_ALLOC.store(size.max(1), Ordering::Relaxed);
    }
    ptr
}

/// Bytes of the last allocation the instance's memory could not hold; 0 when none failed.
/// Read by the page after a trap: a non-zero figure means the instance ran out of memory.
#[no_mangle]
pub extern "C" fn parsebox_alloc_failed() -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let bytes = FAILED_ALLOC.load(Ordering::Relaxed) as f64;
    bytes
}

/// Cycles of work the engine has run so far ([`parsebox_sandbox::work_done`]). The page reads
/// it from its `parsebox_poll` during a line: when it moved since the last reading, the engine
/// is making progress and its deadline moves on; when it did not, the engine is stuck in one
/// native step, and the deadline stops it.
#[no_mangle]
pub extern "C" fn parsebox_work_done() -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let cycles = parsebox_sandbox::work_done() as f64;
    cycles
}

/// The system allocator, noting a failed allocation ([`FAILED_ALLOC`]) and zeroing what is
/// freed while [`ZERO_FREED`] is set.
struct Allocator;

// SAFETY: every method forwards to `System` with the caller's arguments; zeroing writes only
// the block being freed, which the caller still owns.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, forwarded.
        noted(unsafe { System.alloc(layout) }, layout.size())
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, forwarded.
        noted(unsafe { System.alloc_zeroed(layout) }, layout.size())
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if ZERO_FREED.load(Ordering::Relaxed) {
            // SAFETY: `ptr` is a live block of `layout.size()` bytes until freed below.
            unsafe { ptr.write_bytes(0, layout.size()) };
        }
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !ZERO_FREED.load(Ordering::Relaxed) {
            // SAFETY: the caller's contract, forwarded.
            return noted(unsafe { System.realloc(ptr, layout, new_size) }, new_size);
        }
        // Moved by hand, so the old block is zeroed when freed.
        // SAFETY: `realloc`'s contract makes this layout valid (non-zero size, same align).
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        // SAFETY: as above.
        let new = unsafe { System.alloc(new_layout) };
        if !new.is_null() {
            // SAFETY: both blocks are live and distinct; the copy stays within both.
            unsafe {
                std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
        }
        new
    }
}

#[global_allocator]
static GLOBAL: Allocator = Allocator;

/// Makes the realm the next `parsebox_start` loads its parser into (`Session::prepare`), with
/// freed memory zeroed meanwhile. `build.sh` calls it once and keeps the memory that results as
/// the module's initial memory. Returns the length of the answer (JSON `Result<(), LoadError>`).
#[no_mangle]
pub extern "C" fn parsebox_prepare() -> usize {
    ZERO_FREED.store(true, Ordering::Relaxed);
    let out = SESSION.with(|s| s.borrow_mut().prepare());
    let len = answer(out);
    ZERO_FREED.store(false, Ordering::Relaxed);
    len
}

/// Loads the warm-up parser and parses its lines (`warm_up`), so the module's code is compiled
/// before a real parser loads; `max_memory_bytes` is the instance's memory maximum. Returns the
/// length of the answer (JSON `[started, answers]`).
#[no_mangle]
pub extern "C" fn parsebox_warm_up(max_memory_bytes: f64) -> usize {
    let out = SESSION.with(|s| crate::warm_up(&mut s.borrow_mut(), max_memory_bytes as u64));
    answer(out)
}

/// 1 when a prepared realm waits for the next start (as in a fresh instance of the built
/// module), else 0.
#[no_mangle]
pub extern "C" fn parsebox_prepared() -> u32 {
    SESSION.with(|s| u32::from(s.borrow().prepared()))
}

fn layout(len: usize) -> Option<Layout> {
    Layout::array::<u8>(len).ok()
}

/// A buffer of `len` bytes for the page to fill; 0 when the memory cannot hold it (the
/// instance is still usable). `len == 0` gives a non-null dangling pointer.
#[no_mangle]
pub extern "C" fn parsebox_alloc(len: usize) -> *mut u8 {
    if len == 0 {
        return NonNull::<u8>::dangling().as_ptr();
    }
    match layout(len) {
        // SAFETY: `layout` has a non-zero size.
        Some(layout) => unsafe { alloc(layout) },
        None => std::ptr::null_mut(),
    }
}

/// Frees a buffer from [`parsebox_alloc`] that the page did not pass to a call.
///
/// # Safety
/// `ptr` came from `parsebox_alloc(len)` and was not freed or passed on.
#[no_mangle]
pub unsafe extern "C" fn parsebox_free(ptr: *mut u8, len: usize) {
    if len == 0 || ptr.is_null() {
        return;
    }
    if let Some(layout) = layout(len) {
        // SAFETY: the caller's contract: allocated with this layout, not freed yet.
        unsafe { dealloc(ptr, layout) }
    }
}

/// Borrows a page-filled buffer for `f`, then frees it.
///
/// # Safety
/// As [`parsebox_free`], and the page wrote all `len` bytes.
unsafe fn with_input<R>(ptr: *mut u8, len: usize, f: impl FnOnce(&[u8]) -> R) -> R {
    let out = if len == 0 || ptr.is_null() {
        f(&[])
    } else {
        // SAFETY: `len` initialised bytes at `ptr`, owned by this call.
        f(unsafe { std::slice::from_raw_parts(ptr, len) })
    };
    // SAFETY: as the caller's contract.
    unsafe { parsebox_free(ptr, len) };
    out
}

/// Keeps `answer` for [`parsebox_result_ptr`] and returns its length.
fn answer(answer: String) -> usize {
    RESULT.with(|r| {
        let mut r = r.borrow_mut();
        *r = answer.into_bytes();
        r.len()
    })
}

/// Loads the parser source (`src`, UTF-8) with the `EngineConfig` JSON `cfg`; takes ownership
/// of both buffers. Returns the length of the answer (JSON `Result<String, LoadError>`).
///
/// # Safety
/// Both buffers came from `parsebox_alloc` with these lengths and were filled by the page.
#[no_mangle]
pub unsafe extern "C" fn parsebox_start(
    src_ptr: *mut u8,
    src_len: usize,
    cfg_ptr: *mut u8,
    cfg_len: usize,
) -> usize {
    // SAFETY: the caller's contract, for each buffer.
    let out = unsafe {
        with_input(src_ptr, src_len, |src| {
            with_input(cfg_ptr, cfg_len, |cfg| {
                SESSION.with(|s| s.borrow_mut().start(src, cfg))
            })
        })
    };
    answer(out)
}

/// Performs a JSON `Vec<EngineOp>` batch; takes ownership of the buffer. Returns the length of
/// the answer (JSON `[[seq, outcome], …]`, a line's third element `{"stateLost":true}` when its
/// run lost its parser's state before it: `parsebox_protocol::EngineAnswer`).
///
/// # Safety
/// The buffer came from `parsebox_alloc` with this length and was filled by the page.
#[no_mangle]
pub unsafe extern "C" fn parsebox_run(ops_ptr: *mut u8, ops_len: usize, batch_start: u32) -> usize {
    // SAFETY: the caller's contract.
    let out = unsafe {
        with_input(ops_ptr, ops_len, |ops| {
            SESSION.with(|s| s.borrow_mut().run(ops, batch_start != 0, began))
        })
    };
    answer(out)
}

/// Takes an ops frame to perform a record at a time (`parsebox_run_next`); takes ownership of
/// the buffer. `answer_batch_ms`: how long a Worker may hold answers (`parsebox_post_due`).
///
/// # Safety
/// The buffer came from `parsebox_alloc` with this length and was filled by the page.
#[no_mangle]
pub unsafe extern "C" fn parsebox_queue(ops_ptr: *mut u8, ops_len: usize, answer_batch_ms: f64) {
    let now = now_ms();
    // SAFETY: the caller's contract.
    unsafe {
        with_input(ops_ptr, ops_len, |ops| {
            SESSION.with(|s| s.borrow_mut().queue(ops, answer_batch_ms, now))
        })
    }
}

/// 1 while the queued frame has records left ([`Session::has_next`]).
#[no_mangle]
pub extern "C" fn parsebox_has_next() -> u32 {
    SESSION.with(|s| u32::from(s.borrow().has_next()))
}

/// Performs the queued frame's next record ([`Session::run_next`]); returns the length of the
/// answer, as `parsebox_run` does.
#[no_mangle]
pub extern "C" fn parsebox_run_next() -> usize {
    let out = SESSION.with(|s| s.borrow_mut().run_next(began));
    answer(out)
}

/// 1 when a Worker posts the answers it holds now ([`Session::post_due`]: realm work comes
/// next, the frame is done, or the batch time has passed); 0 otherwise.
#[no_mangle]
pub extern "C" fn parsebox_post_due() -> u32 {
    let now = now_ms();
    SESSION.with(|s| u32::from(s.borrow_mut().post_due(now)))
}

/// Where the last answer's bytes are (valid until the next start or run).
#[no_mangle]
pub extern "C" fn parsebox_result_ptr() -> *const u8 {
    RESULT.with(|r| r.borrow().as_ptr())
}
