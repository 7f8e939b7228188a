//! Live runs as a page sees them, between the host core (`parsebox-host`) and the page's JS: the
//! engines of the page's own thread (built-in parsers here, inline engine instances through
//! the [`Executor`]), the commands left for the JS driver ([`ExecutorCommand`]), what waits for
//! the page's next frame (`frame.rs`: late answers, builders to call back, line updates of
//! runs no builder owns). Over it, [`LiveTranscript`] is a transcript builder with its own run,
//! which decides what each call hands the page, and [`Paperclip`] holds Paperclip compatibility:
//! runs followed from a chunk list handed over whole ([`FollowedRun`]) and the ones
//! `buildTranscript` keeps between renders. Two rules of the page as a whole live here too:
//! whether parsers wait for the engine's warm-up ([`parsers_wait_for_warm_up`]) and which idle
//! Workers the page keeps ([`worker_pool`]).
//!
//! [`LiveCore`] holds them with the host core and keeps them consistent: every command the core
//! issues passes through [`LiveCore::pump`], every line through [`LiveCore::parse_line`], and a
//! run let go is forgotten everywhere by [`LiveCore::drop_run`]. It does no I/O of its own: the
//! wasm binding implements [`Executor`] for its JS callbacks and converts, and the tests here
//! drive it with a fake executor.

mod command;
mod executor;
mod frame;
mod host_run;
mod live;
pub mod memory;
mod paperclip;
mod shared;
mod transcript;
mod warm_up;
pub mod worker_pool;

pub use command::ExecutorCommand;
pub use executor::{Builtin, EngineDeath, Executor};
pub use frame::{Frame, LineUpdate, LATE_BYTES_PER_FRAME, LATE_ENTRIES_PER_FRAME};
pub use host_run::HostRunParser;
pub use live::{LiveCore, LongLived, Polled};
pub use paperclip::{Built, ChunkIn, FollowedRun, Paperclip, Shown, KEEP_RUNS};
pub use shared::{Entered, Reentered, SharedCore};
pub use transcript::{
    Changes, FoldsLate, FollowedWindow, LiveTranscript, MemoryRefusal, PendingTail,
    TimelineChanges, TranscriptError, TranscriptSettings, Transcripts, Update,
};
pub use warm_up::parsers_wait_for_warm_up;
