//! The shared core's memory, in real bytes: what its allocator holds (`parsebox-meter`), not an
//! estimate. Everything the page keeps in the core (transcripts, the answers waiting for them)
//! draws from one room, [`CORE_HELD_BYTES`], whatever its registry: the budgets of
//! transcripts and registries narrow it, and beside it the core keeps [`CORE_WORKING_BYTES`]
//! for one call's working memory (a chunk being split, an answer being read, a transcript
//! written out as JSON) and the allocator's own slack. The two together are the core module's
//! memory maximum, so reaching a budget is a refused chunk or a generic line for that
//! transcript alone, never a trap of the core.

use std::sync::atomic::{AtomicUsize, Ordering};

use parsebox_meter::held_bytes;

/// The core module's memory maximum: 2 GiB (`.cargo/config.toml`, `--max-memory`).
pub const CORE_MEMORY_BYTES: usize = 2 << 30;

/// Most the page's transcripts and the answers waiting for them hold in the core, together,
/// whatever registry they belong to: 1 GiB.
pub const CORE_HELD_BYTES: usize = 1 << 30;

/// What the core keeps free beside [`CORE_HELD_BYTES`]: one call's working memory (the
/// largest is writing a whole transcript out as JSON, at most its budget:
/// [`MAX_TRANSCRIPT_BYTES`]) and the allocator's slack.
pub const CORE_WORKING_BYTES: usize = CORE_MEMORY_BYTES - CORE_HELD_BYTES;

/// The largest `maxTranscriptBytes` one transcript may be given: 512 MiB.
pub const MAX_TRANSCRIPT_BYTES: usize = 512 << 20;

// Every budget fits the core's room, with its working room beside it.
const _: () = assert!(CORE_HELD_BYTES + CORE_WORKING_BYTES <= CORE_MEMORY_BYTES);
const _: () = assert!(MAX_TRANSCRIPT_BYTES + (256 << 20) <= CORE_WORKING_BYTES);
const _: () = assert!(parsebox_host::MAX_TRANSCRIPT_BYTES_TOTAL <= CORE_HELD_BYTES);
const _: () = assert!(parsebox_host::DEFAULT_TRANSCRIPT_BYTES <= MAX_TRANSCRIPT_BYTES);

/// The most one line shown with its generic entry holds in a transcript, besides its text:
/// its entry, what the transcript keeps to fold and rebuild it, its timeline item, and its
/// copy in the run's journal. `tests/memory.rs` measures it at the allocator for every
/// placement.
#[cfg(target_pointer_width = "32")]
pub const GENERIC_LINE_BYTES: usize = 512;
/// See the 32-bit constant: pointers twice as wide.
#[cfg(not(target_pointer_width = "32"))]
pub const GENERIC_LINE_BYTES: usize = 768;

/// Kept free in a transcript's room by every check during a call: what the call itself takes
/// after its last line is checked (the timeline's update, and the buffer the page's copy of
/// what changed is written to, which a builder keeps up to 64 KiB of between calls).
pub const CALL_SLACK_BYTES: usize = 128 << 10;

/// What one byte of a chunk's text costs a transcript at most: the retained chunk, and the
/// copies a line can be kept in (its timeline item's text, its journal entry, a line begun in
/// an earlier chunk).
pub const CHUNK_BYTE_BYTES: usize = 4;

/// The most a chunk of `text_bytes` bytes with `lines` lines in it may hold once taken in, when
/// each line shows its generic entry: what a transcript must have room for before it takes the
/// chunk in.
pub fn chunk_bound(text_bytes: usize, lines: usize) -> usize {
    text_bytes
        .saturating_mul(CHUNK_BYTE_BYTES)
        .saturating_add(lines.saturating_mul(GENERIC_LINE_BYTES))
}

/// How far the core's memory may stay grown past where its instance started once nothing holds
/// its objects: 32 MiB. A wasm memory only grows, so past this the page lets the instance go
/// and starts a fresh one ([`gives_memory_back`]).
pub const KEEP_GROWN_BYTES: u64 = 32 << 20;

/// Whether a core instance that nothing holds objects of any more (every registry and builder
/// disposed or collected) is replaced by a fresh one to give its memory back: its memory is
/// `now_bytes`, having started at `start_bytes`, and a wasm memory cannot shrink.
pub fn gives_memory_back(start_bytes: u64, now_bytes: u64) -> bool {
    now_bytes.saturating_sub(start_bytes) >= KEEP_GROWN_BYTES
}

/// What the frozen prefixes of every transcript would hold again as live entries (each
/// transcript's [`Ledger`](crate::transcript::Ledger) adds its share): budgets count it beside
/// what the allocator holds, so a rebuild, which parses a frozen prefix into the live form,
/// fits the room they left for it.
static FROZEN_SAVED: AtomicUsize = AtomicUsize::new(0);

/// Adds `bytes` to what frozen prefixes stand for ([`FROZEN_SAVED`]).
pub(crate) fn add_frozen_saved(bytes: usize) {
    FROZEN_SAVED.fetch_add(bytes, Ordering::Relaxed);
}

/// Takes `bytes` off what frozen prefixes stand for.
pub(crate) fn sub_frozen_saved(bytes: usize) {
    let _ = FROZEN_SAVED.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| {
        Some(v.saturating_sub(bytes))
    });
}

/// The core's room as lowered by [`lower_core_held_bytes`].
static CORE_LIMIT: AtomicUsize = AtomicUsize::new(CORE_HELD_BYTES);

/// Lowers what the core's transcripts may hold together below [`CORE_HELD_BYTES`] (a page
/// that shares its memory with other heavy work; a test that reaches the limit quickly).
/// It is never raised above it.
pub fn lower_core_held_bytes(bytes: usize) {
    CORE_LIMIT.store(bytes.min(CORE_HELD_BYTES), Ordering::Relaxed);
}

/// The most the core's transcripts may hold together: [`CORE_HELD_BYTES`], or less
/// ([`lower_core_held_bytes`]).
pub fn core_held_limit() -> usize {
    CORE_LIMIT.load(Ordering::Relaxed)
}

/// How much more the core's transcripts may hold together ([`core_held_limit`], less what the
/// core holds now and what its transcripts' frozen prefixes would hold again live).
pub fn core_room() -> usize {
    core_held_limit()
        .saturating_sub(held_bytes())
        .saturating_sub(FROZEN_SAVED.load(Ordering::Relaxed))
}

#[cfg(test)]
mod tests {
    use super::{gives_memory_back, KEEP_GROWN_BYTES};

    #[test]
    fn an_idle_core_is_replaced_once_it_grew_by_the_kept_bytes() {
        const MIB: u64 = 1 << 20;
        let table = [
            (18 * MIB, 18 * MIB, false),
            (18 * MIB, 18 * MIB + KEEP_GROWN_BYTES - 1, false),
            (18 * MIB, 18 * MIB + KEEP_GROWN_BYTES, true),
            (18 * MIB, 2048 * MIB, true),
            // A memory reported smaller than at the start (never, in wasm): not grown.
            (64 * MIB, 18 * MIB, false),
        ];
        for (start, now, replaced) in table {
            assert_eq!(gives_memory_back(start, now), replaced, "{start} -> {now}");
        }
    }
}
