//! An engine process: what a Worker is to the page, a process is to the command. It runs one
//! adapter's engine (the engine module's own [`Session`], natively) over its standard streams
//! ([`super::pipe`]): it starts the engine when told, performs each ops frame a record at a
//! time, says when a live line begins and when its count of work moves on, and holds answers
//! for up to `answerBatchMs` before it writes them, as `worker.js` does. A live line whose
//! count of work stops moving for `lineDeadlineMs` (one native step the sandbox cannot
//! interrupt) is reported as a Worker reports it: what is held is written, then `stopped`. The
//! command ends the process at the core's own deadline, armed from the same start, by killing
//! it: a native thread cannot be stopped any other way, and none is left computing.

use std::io::{self, BufWriter};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use parsebox_engine_wasm::{Hooks, Session};
use parsebox_protocol::{EngineConfig, LineStart};
use serde::{Deserialize, Serialize};

use super::pipe::{self, ANSWERS, BEGAN, OPS, PROGRESS, START, STARTED, STOPPED};

/// The first argument that makes `parsebox` an engine process instead of the command.
pub const ENGINE_ARG: &str = "--engine-process";

/// What starts the engine: the core's `StartWorker` command, as the page posts it to a Worker.
#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct StartMessage {
    /// The parser source.
    pub source: String,
    /// The engine config, JSON.
    pub config: String,
    /// How long answers may be held before they are written, in milliseconds.
    pub answer_batch_ms: f64,
    /// How long a live line's count of work may stand still before the line is stopped.
    pub line_deadline_ms: f64,
}

/// The live line under way, as the watcher reads it (engine.js' `parsebox_poll`).
struct LineClock {
    /// When the line is stopped unless its work moves on first.
    stop_at: Instant,
    /// When the watcher next reads the count of work.
    check_at: Instant,
    /// The count of work at the last reading.
    work: u64,
    /// The line's deadline.
    deadline: Duration,
}

impl LineClock {
    /// A line that began now; `None` when its deadline is past the clock's range (never).
    fn new(deadline: Duration) -> Option<Self> {
        let now = Instant::now();
        Some(Self {
            stop_at: now.checked_add(deadline)?,
            check_at: now.checked_add(deadline / 4)?,
            work: parsebox_sandbox::work_done(),
            deadline,
        })
    }
}

/// What the engine's thread and the watcher share.
#[derive(Default)]
struct Shared {
    /// Answer batches not written yet.
    held: Vec<String>,
    /// The live line under way, when one is.
    line: Option<LineClock>,
}

/// Locks `m`, whatever a thread that panicked left in it (the data stays usable).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Standard output, for both threads.
type Out = Arc<Mutex<BufWriter<io::Stdout>>>;

/// Writes every held batch. A pipe that is gone means the command is gone: nothing to tell.
fn post(out: &Out, shared: &mut Shared) {
    let mut out = lock(out);
    for batch in shared.held.drain(..) {
        let _ = pipe::write_message(&mut *out, ANSWERS, batch.as_bytes());
    }
}

/// Serves the command until it closes the pipe; the process's exit code.
pub fn serve() -> u8 {
    let start = Instant::now();
    let now_ms = move || start.elapsed().as_secs_f64() * 1000.0;
    let out: Out = Arc::new(Mutex::new(BufWriter::new(io::stdout())));
    let shared = Arc::new(Mutex::new(Shared::default()));
    watch(Arc::clone(&out), Arc::clone(&shared));

    let mut session = Session::new(Hooks {
        clock: None,
        heap_probe: Some(parsebox_meter::held_bytes),
    });
    let mut deadline = Duration::MAX;
    let mut batch_ms = 0.0;
    let mut input = io::stdin().lock();
    loop {
        let (tag, payload) = match pipe::read_message(&mut input) {
            Ok(Some(m)) => m,
            Ok(None) => return 0,
            Err(e) => {
                eprintln!("parsebox engine process: cannot read the command's message: {e}");
                return 1;
            }
        };
        match tag {
            START => {
                let start: StartMessage = match serde_json::from_slice(&payload) {
                    Ok(s) => s,
                    Err(e) => {
                        eprintln!("parsebox engine process: a start it cannot read: {e}");
                        return 1;
                    }
                };
                deadline = duration_ms(start.line_deadline_ms);
                // The engine's memory has a maximum, as a page's engine instance has: past it
                // an allocation fails, the process aborts, and the command reads the bytes
                // that did not fit from what Rust says on stderr (an out-of-memory death).
                if let Ok(config) = serde_json::from_str::<EngineConfig>(&start.config) {
                    let most = usize::try_from(config.max_memory_bytes).unwrap_or(usize::MAX);
                    parsebox_meter::limit_thread_bytes(
                        parsebox_meter::held_bytes().saturating_add(most),
                    );
                }
                batch_ms = start.answer_batch_ms;
                // The module's evaluation is stopped as a line is.
                lock(&shared).line = LineClock::new(deadline);
                let result = session.start(start.source.as_bytes(), start.config.as_bytes());
                lock(&shared).line = None;
                let _ = pipe::write_message(&mut *lock(&out), STARTED, result.as_bytes());
            }
            OPS => {
                session.queue(&payload, batch_ms, now_ms());
                while session.has_next() {
                    let answers = session.run_next(|began: LineStart| {
                        lock(&shared).line = LineClock::new(deadline);
                        if began.report {
                            let seq = began.seq.to_le_bytes();
                            let _ = pipe::write_message(&mut *lock(&out), BEGAN, &seq);
                        }
                    });
                    let mut s = lock(&shared);
                    s.line = None;
                    if !answers.is_empty() {
                        s.held.push(answers);
                    }
                    if session.post_due(now_ms()) {
                        post(&out, &mut s);
                    }
                }
                post(&out, &mut lock(&shared));
            }
            other => {
                eprintln!("parsebox engine process: an unknown message ({other})");
                return 1;
            }
        }
    }
}

/// A duration of `ms` milliseconds; anything that is not a positive finite number never ends.
fn duration_ms(ms: f64) -> Duration {
    if ms.is_finite() && ms > 0.0 {
        Duration::from_secs_f64(ms / 1000.0)
    } else {
        Duration::MAX
    }
}

/// Starts the watcher: every few milliseconds during a live line, a quarter of its deadline
/// apart, it reads the engine's count of work. Moved on: the line's deadline moves and the
/// command hears `progress`. Not moved by the deadline: the engine is stuck in one native step;
/// what is held is written, then `stopped`, and the process waits to be killed.
fn watch(out: Out, shared: Arc<Mutex<Shared>>) {
    let spawned = std::thread::Builder::new()
        .name("parsebox engine watcher".into())
        .spawn(move || loop {
            std::thread::sleep(Duration::from_millis(5));
            let mut s = lock(&shared);
            let now = Instant::now();
            let Some(line) = s.line.as_mut() else {
                continue;
            };
            if now < line.check_at {
                continue;
            }
            line.check_at = now.checked_add(line.deadline / 4).unwrap_or(line.check_at);
            let work = parsebox_sandbox::work_done();
            if work != line.work {
                line.work = work;
                line.stop_at = now.checked_add(line.deadline).unwrap_or(line.stop_at);
                let _ = pipe::write_message(&mut *lock(&out), PROGRESS, &[]);
            } else if now >= line.stop_at {
                let ms = line.deadline.as_secs_f64() * 1000.0;
                post(&out, &mut s);
                let said = format!("the line's work stood still for its {ms} ms deadline");
                let _ = pipe::write_message(&mut *lock(&out), STOPPED, said.as_bytes());
                s.line = None;
            }
        });
    if let Err(e) = spawned {
        // Without a watcher nothing stops a line stuck in one native step but the command's
        // deadline, which kills the process: still bounded.
        eprintln!("parsebox engine process: no watcher thread: {e}");
    }
}
