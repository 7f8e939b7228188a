//! The engine processes of a [`NativeCore`](super::NativeCore), and the [`Executor`] the live
//! core posts ops through: what `engines.js` and `workers.js` are to the page. Each process has
//! a thread that writes what the core sends (so a busy engine never blocks the core) and one
//! that reads what it reports, as events on one channel.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::{BufReader, BufWriter, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::rc::Rc;
use std::sync::mpsc::{self, Sender};
use std::time::Instant;

use parsebox_host::{EngineId, InstanceFactory, ParserInstance};
use parsebox_live::{Builtin, EngineDeath, Executor};
use parsebox_transcript::{FailureCode, LineFailure};

use super::pipe::{self, ANSWERS, BEGAN, PROGRESS, START, STARTED, STOPPED};
use super::process::{StartMessage, ENGINE_ARG};

/// How much of the end of an engine process's stderr is kept to name its death.
const STDERR_TAIL: usize = 2000;

/// What an engine process reported.
#[derive(Debug)]
pub enum Event {
    /// Its start's result, JSON.
    Started(String),
    /// A live line began.
    Began(u64),
    /// Its count of work moved on during a line.
    Progress,
    /// A batch of answers, JSON.
    Answers(String),
    /// It ended: how (its exit and the last of what it wrote to stderr).
    Ended(EngineDeath),
}

/// The engine processes by engine, and where they report.
pub struct Processes {
    exe: PathBuf,
    clock: Instant,
    running: HashMap<EngineId, Running>,
    events: Sender<(EngineId, Event)>,
}

/// One engine process.
struct Running {
    child: Child,
    /// Whole messages for the writer thread.
    to_child: Sender<(u8, Vec<u8>)>,
}

impl Processes {
    /// No processes yet; each runs `exe` (this command) as an engine, and reports on `events`.
    pub fn new(exe: PathBuf, events: Sender<(EngineId, Event)>) -> Self {
        Self {
            exe,
            clock: Instant::now(),
            running: HashMap::new(),
            events,
        }
    }

    /// Milliseconds since the command began: the clock every deadline of the core is measured with.
    pub fn now_ms(&self) -> f64 {
        self.clock.elapsed().as_secs_f64() * 1000.0
    }

    /// Starts an engine process for `engine` and tells it to start with `start`.
    ///
    /// # Errors
    /// Why the process could not be made.
    pub fn start(&mut self, engine: EngineId, start: &StartMessage) -> Result<(), String> {
        let mut child = spawn(&self.exe).map_err(|e| {
            format!(
                "cannot start an engine process ({}): {e}",
                self.exe.display()
            )
        })?;
        let (to_child, from_core) = mpsc::channel::<(u8, Vec<u8>)>();
        let (Some(stdin), Some(stdout), Some(mut stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err("an engine process without its pipes".to_owned());
        };
        std::thread::spawn(move || {
            let mut w = BufWriter::new(stdin);
            while let Ok((tag, payload)) = from_core.recv() {
                if pipe::write_message(&mut w, tag, &payload).is_err() {
                    break;
                }
            }
        });
        // What it writes to stderr (a panic's message, an allocation that failed): the last
        // of it names its death.
        let stderr_tail = std::thread::spawn(move || {
            let mut tail = Vec::new();
            let mut buf = [0u8; 4096];
            // Only the last STDERR_TAIL bytes are kept, however much it writes.
            while let Ok(n @ 1..) = stderr.read(&mut buf) {
                tail.extend_from_slice(buf.get(..n).unwrap_or_default());
                let extra = tail.len().saturating_sub(STDERR_TAIL);
                tail.drain(..extra);
            }
            String::from_utf8_lossy(&tail).into_owned()
        });
        let events = self.events.clone();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            let mut stopped = false;
            let cause = loop {
                let event = match pipe::read_message(&mut r) {
                    Ok(Some((STARTED, p))) => Event::Started(String::from_utf8_lossy(&p).into()),
                    Ok(Some((BEGAN, p))) => match <[u8; 8]>::try_from(p.as_slice()) {
                        Ok(b) => Event::Began(u64::from_le_bytes(b)),
                        Err(_) => break "a malformed began report".to_owned(),
                    },
                    Ok(Some((PROGRESS, _))) => Event::Progress,
                    Ok(Some((ANSWERS, p))) => Event::Answers(String::from_utf8_lossy(&p).into()),
                    // As the page does with a Worker's `stopped`: the core's own deadline,
                    // armed from the same start, ends the engine.
                    Ok(Some((STOPPED, _))) => {
                        stopped = true;
                        continue;
                    }
                    Ok(Some((tag, _))) => break format!("an unknown report ({tag})"),
                    Ok(None) => break String::new(),
                    Err(e) => break format!("a report it could not read: {e}"),
                };
                if events.send((engine, event)).is_err() {
                    return;
                }
            };
            if stopped {
                return;
            }
            let said = stderr_tail.join().unwrap_or_default();
            let _ = events.send((engine, Event::Ended(death(&cause, &said))));
        });
        let start = serde_json::to_vec(start).map_err(|e| e.to_string())?;
        let _ = to_child.send((START, start));
        self.running.insert(engine, Running { child, to_child });
        Ok(())
    }

    /// Sends `engine` a message; one for an engine that is gone is dropped (its end reports itself).
    pub fn send(&mut self, engine: EngineId, tag: u8, payload: Vec<u8>) {
        if let Some(r) = self.running.get(&engine) {
            let _ = r.to_child.send((tag, payload));
        }
    }

    /// Ends `engine`'s process (killed: a line stuck in one native step stops only so).
    pub fn end(&mut self, engine: EngineId) {
        if let Some(mut r) = self.running.remove(&engine) {
            let _ = r.child.kill();
            let _ = r.child.wait();
        }
    }

    /// Whether `engine` has a process (reports of one that ended are ignored).
    pub fn is_running(&self, engine: EngineId) -> bool {
        self.running.contains_key(&engine)
    }

    /// How many engine processes are running.
    pub fn running(&self) -> usize {
        self.running.len()
    }
}

impl Drop for Processes {
    fn drop(&mut self) {
        let engines: Vec<EngineId> = self.running.keys().copied().collect();
        for engine in engines {
            self.end(engine);
        }
    }
}

fn spawn(exe: &Path) -> std::io::Result<Child> {
    Command::new(exe)
        .arg(ENGINE_ARG)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
}

/// How an engine process died, from why its reports ended (`cause`, empty at their end) and
/// the last of its stderr: an allocation that did not fit (Rust's own message) is the page's
/// out-of-memory death, anything else a fault.
fn death(cause: &str, stderr: &str) -> EngineDeath {
    let failed_alloc = stderr
        .split("memory allocation of ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse::<u64>().ok());
    if let Some(bytes) = failed_alloc {
        return EngineDeath::OutOfMemory(bytes);
    }
    let said = stderr.trim();
    let description = match (cause.is_empty(), said.is_empty()) {
        (true, true) => "the engine process ended".to_owned(),
        (true, false) => format!("the engine process ended: {said}"),
        (false, true) => format!("the engine process sent {cause}"),
        (false, false) => format!("the engine process sent {cause}: {said}"),
    };
    EngineDeath::Fault(description)
}

/// The [`Executor`] of a [`NativeCore`](super::NativeCore): every engine is a process (the
/// core's Worker placement), so the calls for engines of this thread never come.
pub struct ProcessExecutor(pub Rc<RefCell<Processes>>);

/// No built-in parsers: the command registers none.
#[derive(Clone)]
pub struct NoBuiltin;

/// The instance [`NoBuiltin`] never makes.
pub struct NoInstance;

impl ParserInstance for NoInstance {
    type Value = serde_json::Value;
    fn parse(&mut self, _: &str, _: &str) -> Result<serde_json::Value, LineFailure> {
        Err(no_engine_here())
    }
    fn reset(&mut self) -> Result<(), LineFailure> {
        Ok(())
    }
}

impl InstanceFactory for NoBuiltin {
    type Instance = NoInstance;
    fn new_instance(&mut self, _: bool) -> Result<NoInstance, LineFailure> {
        Err(no_engine_here())
    }
}

impl Builtin for NoBuiltin {
    fn entry_point(&self) -> &'static str {
        "parseStdoutLine"
    }
}

fn no_engine_here() -> LineFailure {
    LineFailure::new(
        FailureCode::EngineFault,
        "the command runs every engine in a process of its own",
    )
}

impl Executor for ProcessExecutor {
    type Builtin = NoBuiltin;

    fn now_ms(&self) -> f64 {
        self.0.borrow().now_ms()
    }

    fn start_inline(
        &mut self,
        _: EngineId,
        _: &str,
        _: &str,
        _: &str,
    ) -> Result<String, EngineDeath> {
        Err(EngineDeath::Fault(no_engine_here().message))
    }

    fn run_inline(&mut self, _: EngineId, _: &[u8]) -> Result<Vec<u8>, EngineDeath> {
        Err(EngineDeath::Fault(no_engine_here().message))
    }

    fn end_inline(&mut self, _: EngineId) {}

    fn post_ops(&mut self, engine: EngineId, ops_frame: Vec<u8>) {
        self.0.borrow_mut().send(engine, pipe::OPS, ops_frame);
    }

    fn wake(&mut self) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_allocation_is_an_out_of_memory_death_and_anything_else_a_fault() {
        assert_eq!(
            death("", "memory allocation of 4194304 bytes failed\n"),
            EngineDeath::OutOfMemory(4_194_304)
        );
        assert_eq!(
            death("", ""),
            EngineDeath::Fault("the engine process ended".into())
        );
        assert_eq!(
            death("", "thread panicked\n"),
            EngineDeath::Fault("the engine process ended: thread panicked".into())
        );
    }
}
