//! A page as the memory tests drive it: a live core whose type's parser runs nowhere, inline
//! or in a Worker the test answers for, and the page's driver between calls (ops frames
//! answered, late answers folded in at the frame).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::cell::RefCell;
use std::rc::Rc;

use parsebox_host::{EngineId, HostOptions, HostPlacement};
use parsebox_live::{LiveTranscript, SharedCore, TranscriptError, TranscriptSettings, Update};
use parsebox_transcript::{Chunk, Stream};
use serde_json::{json, Value};

use super::{live_with, sent_lines, worker_type, FakeExecutor, Seen, SOURCE};

pub type Core = Rc<SharedCore<FakeExecutor>>;

/// How a Worker answers a line: its seq and text give the answer's outcome JSON.
pub type Answers = Rc<dyn Fn(u64, &str) -> Value>;

/// Where the type's parser runs.
#[derive(Clone)]
pub enum Placed {
    /// No parser: every line generic.
    Nowhere,
    /// In this thread: `inline:<line>` for each line.
    Inline,
    /// In a Worker, answered by the function.
    Worker(&'static str, Answers),
}

impl std::fmt::Debug for Placed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Placed::Nowhere => f.write_str("Nowhere"),
            Placed::Inline => f.write_str("Inline"),
            Placed::Worker(name, _) => write!(f, "Worker({name})"),
        }
    }
}

/// One assistant entry: `w:<line>`.
pub fn one(_: u64, line: &str) -> Value {
    json!({ "Ok": [{ "kind": "assistant", "ts": "t", "text": format!("w:{line}") }] })
}

/// `n` small entries.
pub fn many(n: usize) -> Answers {
    Rc::new(move |_, _| {
        let entries: Vec<Value> = (0..n)
            .map(|i| json!({ "kind": "system", "ts": "t", "text": format!("{i}") }))
            .collect();
        json!({ "Ok": entries })
    })
}

/// One tool call whose input is an array of `n` small numbers (~`2n` bytes of JSON).
pub fn dense(n: u32) -> Answers {
    Rc::new(move |_, _| {
        let numbers: Vec<u32> = (0..n).map(|i| i % 10).collect();
        json!({ "Ok": [{ "kind": "tool_call", "ts": "t", "name": "n", "input": { "v": numbers } }] })
    })
}

pub struct Page {
    pub core: Core,
    pub seen: Rc<RefCell<Seen>>,
    engine: Option<EngineId>,
    answers: Option<Answers>,
}

/// A page whose type `w` has its parser where `placed` says, under `options`.
pub fn page_with(placed: &Placed, options: HostOptions) -> Page {
    let host = match placed {
        Placed::Worker(..) => HostPlacement::Worker,
        _ => HostPlacement::Inline,
    };
    let (mut live, seen) = live_with(HostOptions {
        host,
        load_sources: false,
        ..options
    });
    seen.borrow_mut().forget_posted = true;
    let (engine, answers) = match placed {
        Placed::Nowhere => (None, None),
        Placed::Inline => {
            live.register_source("w", SOURCE, None).unwrap();
            live.take_commands();
            (None, None)
        }
        Placed::Worker(_, answers) => (Some(worker_type(&mut live)), Some(Rc::clone(answers))),
    };
    Page {
        core: Rc::new(SharedCore::new(live)),
        seen,
        engine,
        answers,
    }
}

/// [`page_with`] the default options.
pub fn page(placed: &Placed) -> Page {
    page_with(placed, HostOptions::default())
}

impl Page {
    pub fn transcript(&self, settings: TranscriptSettings) -> LiveTranscript<FakeExecutor> {
        LiveTranscript::new(&self.core, "w", settings).unwrap()
    }

    /// What the page's driver does between two calls: posts ops frames (the Worker answers
    /// every line of them), and at the frame folds the answers into `t`.
    pub fn drive(&self, t: &mut LiveTranscript<FakeExecutor>) {
        self.drive_with(t, |_| {});
    }

    /// [`drive`](Self::drive), handing each fold's update to `seen`.
    pub fn drive_with(
        &self,
        t: &mut LiveTranscript<FakeExecutor>,
        mut seen: impl FnMut(&Update<'_>),
    ) {
        let (Some(engine), Some(answers)) = (self.engine, self.answers.as_ref()) else {
            self.core.enter().unwrap().take_commands();
            return;
        };
        loop {
            let frame = {
                let mut s = self.core.enter().unwrap();
                s.take_commands();
                s.take_ops(engine)
            };
            let lines = sent_lines(&frame);
            drop(frame);
            if lines.is_empty() {
                break;
            }
            let batch: Vec<Value> = lines
                .iter()
                .map(|(seq, line)| json!([seq, answers(*seq, line)]))
                .collect();
            let batch = serde_json::to_string(&batch).unwrap();
            self.core.enter().unwrap().worker_answered(engine, &[batch]);
        }
        // Frames, as the page has them: each calls back the builders it names.
        loop {
            let frame = self.core.enter().unwrap().take_frame();
            if !frame.builders.contains(&t.run().0) {
                break;
            }
            t.metered(|t| {
                if let Some(update) = t.apply_late().unwrap() {
                    seen(&update);
                }
            });
        }
        self.core.enter().unwrap().take_commands();
    }
}

/// A stdout chunk of `text`.
pub fn chunk(text: String) -> Chunk {
    Chunk {
        ts: "2026-01-01T00:00:00.000Z".into(),
        stream: Stream::Stdout,
        chunk: text,
        seq: None,
    }
}

/// Pushes `lines` lines of `line` in chunks of about `chunk_bytes`, driving the page after
/// each; stops at the first refused chunk. Returns the lines taken and the refusal.
pub fn push_lines(
    page: &Page,
    t: &mut LiveTranscript<FakeExecutor>,
    line: &str,
    lines: usize,
    chunk_bytes: usize,
) -> (usize, Option<TranscriptError>) {
    let per_chunk = (chunk_bytes / (line.len() + 1)).max(1);
    let mut pushed = 0;
    while pushed < lines {
        let n = per_chunk.min(lines - pushed);
        let text: String = std::iter::repeat_n(format!("{line}\n"), n).collect();
        let c = chunk(text);
        if let Err(e) = t.metered(|t| t.push(&c, None).map(|_| ())) {
            return (pushed, Some(e));
        }
        pushed += n;
        page.drive(t);
    }
    (pushed, None)
}
