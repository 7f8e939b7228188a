//! The core's transcripts share one room, whatever registry they belong to: when many
//! registries' transcripts together reach it, the next chunk is refused with the memory error
//! that names the core's room, for that transcript alone, and the core's real bytes stay
//! within it. Its own test binary: the room is lowered for the whole process.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod common;

use std::rc::Rc;

use common::*;
use parsebox_host::{HostOptions, HostPlacement};
use parsebox_live::memory::lower_core_held_bytes;
use parsebox_live::{LiveTranscript, SharedCore, TranscriptError, TranscriptSettings};
use parsebox_meter::{held_bytes, Counting};
use parsebox_transcript::{Chunk, Stream};

#[global_allocator]
static ALLOC: Counting<std::alloc::System> = Counting::new(std::alloc::System);

#[test]
fn many_registries_share_the_cores_room_and_the_one_past_it_is_refused_alone() {
    const ROOM: usize = 40 << 20;
    lower_core_held_bytes(ROOM);
    let chunk = Chunk {
        ts: "2026-01-01T00:00:00.000Z".into(),
        stream: Stream::Stdout,
        chunk: "0123456789012345678901234567890123\n".repeat(400),
        seq: None,
    };
    let mut kept = Vec::new();
    let mut refusals = Vec::new();
    // Six registries, each allowing 512 MiB: together they could ask for far more than the core.
    for _ in 0..6 {
        let (live, _) = live_with(HostOptions {
            host: HostPlacement::Inline,
            load_sources: false,
            ..HostOptions::default()
        });
        let core = Rc::new(SharedCore::new(live));
        let mut t = LiveTranscript::new(&core, "w", TranscriptSettings::default()).unwrap();
        for _ in 0..1000 {
            match t.metered(|t| t.push(&chunk, None).map(|_| ())) {
                Ok(()) => {}
                Err(e) => {
                    refusals.push(e);
                    break;
                }
            }
        }
        assert!(held_bytes() <= ROOM, "{} of {ROOM}", held_bytes());
        kept.push((core, t));
    }
    assert!(refusals.len() >= 3, "{refusals:?}");
    for e in &refusals {
        let TranscriptError::Memory(m) = e else {
            panic!("{e:?}")
        };
        assert!(m.to_string().contains("the page's transcripts hold"), "{m}");
    }
    // The transcripts made before keep what they hold, and a registry let go of gives its room
    // back: the one refused last takes the chunk now.
    assert!(kept[0].1.entries().len() > 1000);
    drop(kept.remove(0));
    let (_, t) = kept.last_mut().unwrap();
    assert!(t.metered(|t| t.push(&chunk, None).map(|_| ())).is_ok());
}
