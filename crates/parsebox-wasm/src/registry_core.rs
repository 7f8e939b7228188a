//! `RegistryCore`: the registry's trusted core as a JS class. Each method is one event for the
//! host core; the commands it leads to are performed (engines of this thread) or queued for
//! the JS driver ([`RegistryCore::poll`]).

use std::cell::RefCell;
use std::rc::Rc;

use parsebox_host::{DynamicLoad, EngineId, Field, Host, HostError, LoadResult, RunId, Seq};
use parsebox_live::{FollowedRun, LiveTranscript, LongLived, Paperclip, Transcripts};
use parsebox_transcript::{FailedLineEntry, TranscriptEntry};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::boundary::{chunk_ids, encode_update, into_error, to_json};
use crate::builtin::BuiltinParser;
use crate::chunk::{chunk_at, encoder, transcript_error, ChunkEncoder};
use crate::js_executor::{
    enter, reentered, Core, EngineExecutor, Entered, JsExecutor, Loaded, Shared,
};
use crate::options::RegistryOptions;

/// What `parseLine` returns: the entries to show now; `late` when a Worker's answer will
/// replace them. (Commands the line led to wake the executor themselves.)
#[derive(Serialize)]
struct LineResult<'a> {
    entries: &'a [TranscriptEntry],
    late: Option<Seq>,
}

/// The registry's trusted core: the host core and the built-in parsers. Shared with the
/// `TranscriptBuilderCore`s made from it.
#[wasm_bindgen]
pub struct RegistryCore {
    pub(crate) core: Rc<Core>,
    /// The runs `buildTranscript` keeps between renders.
    paperclip: RefCell<Paperclip<JsExecutor>>,
    /// The registry's transcript builders, whose late answers a frame folds in.
    pub(crate) transcripts: RefCell<Transcripts<JsExecutor, LiveTranscript<JsExecutor>>>,
    /// The registry's followed runs (the React hook's), whose late answers a frame folds in;
    /// shared with each, which adds itself again when a list starts it anew.
    pub(crate) followers: Rc<RefCell<Transcripts<JsExecutor, FollowedRun<JsExecutor>>>>,
}

/// What waits for this frame, as the page reads it: the builders' updates, the followed runs
/// whose window changed, the line updates by type ([`parsebox_live::Frame`]), and whether a
/// run `buildTranscript` keeps changed (Paperclip's notifier is told).
#[derive(Serialize)]
struct PageFrame {
    /// Each transcript builder whose late answers changed it, and how many strings of its
    /// update follow the JSON (`push`'s result shape), in order.
    updates: Vec<(u64, usize)>,
    /// The runs of the followed runs (React's) whose window the frame changed: their
    /// listeners are told.
    followers: Vec<u64>,
    lines: Vec<(String, Vec<parsebox_live::LineUpdate>)>,
    followed: bool,
}

/// Misuse of the host core as a named error.
fn host_error(e: HostError) -> JsValue {
    match e {
        HostError::Disposed => into_error(
            "ParseboxDisposedError",
            "ParserRegistry used after dispose()",
        ),
        HostError::UnknownRun(_) => into_error("ParseboxRunError", e),
    }
}

impl RegistryCore {
    fn enter(&self) -> Result<Entered<'_>, JsValue> {
        enter(&self.core)
    }

    fn load_result(
        &self,
        adapter_type: &str,
        token: f64,
        result: LoadResult,
    ) -> Result<(), JsValue> {
        self.enter()?.loaded(adapter_type, token as u64, result);
        Ok(())
    }

    fn line_json(shared: &mut Shared, run: RunId, line: &str, ts: &str) -> Result<String, JsValue> {
        let (entries, late) = shared.parse_page_line(run, line, ts).map_err(host_error)?;
        to_json(&LineResult {
            entries: &entries,
            late,
        })
    }
}

#[wasm_bindgen]
impl RegistryCore {
    /// A core from a JSON options object and the executor's callbacks (`startInline`,
    /// `runInline`, `endInline` for engines in this thread, `postOps` for a Worker's frame that
    /// is full, `wake` when commands wait).
    ///
    /// # Errors
    /// `ParseboxOptionsError` for unknown options, wrong types or values out of range.
    #[wasm_bindgen(constructor)]
    pub fn new(
        options_json: &str,
        executor: Option<EngineExecutor>,
    ) -> Result<RegistryCore, JsValue> {
        // Optional only so the raw export takes a heap index, not an untyped `externref`.
        let executor = executor
            .ok_or_else(|| into_error("ParseboxOptionsError", "RegistryCore needs the executor"))?;
        for name in ["startInline", "runInline", "endInline", "postOps", "wake"] {
            let callable = js_sys::Reflect::get(&executor, &JsValue::from_str(name))
                .is_ok_and(|f| f.is_function());
            if !callable {
                return Err(into_error(
                    "ParseboxOptionsError",
                    format!("the executor has no {name} function"),
                ));
            }
        }
        let options: RegistryOptions = serde_json::from_str(options_json).map_err(|e| {
            into_error(
                "ParseboxOptionsError",
                format!("invalid ParserRegistry options: {e}"),
            )
        })?;
        let engine_ready = options.engine_ready.unwrap_or(true);
        let options = options
            .into_host_options()
            .map_err(|m| into_error("ParseboxOptionsError", m))?;
        let mut host = Host::new(options).map_err(|e| into_error("ParseboxOptionsError", e))?;
        if !engine_ready {
            host.engine_module_pending();
        }
        let engine_config = to_json(&host.options().engine_config())?;
        let core = Rc::new(Core::new(Shared::new(
            host,
            engine_config,
            JsExecutor(executor),
        )));
        Ok(Self {
            paperclip: RefCell::new(Paperclip::new(Rc::clone(&core))),
            transcripts: RefCell::new(Transcripts::new(Rc::clone(&core))),
            followers: Rc::new(RefCell::new(Transcripts::new(Rc::clone(&core)))),
            core,
        })
    }

    /// The config every engine starts with, as JSON (`maxMemoryBytes` sizes its memory).
    #[wasm_bindgen(js_name = engineConfig)]
    pub fn engine_config(&self) -> Result<String, JsValue> {
        Ok(self.enter()?.engine_config().to_owned())
    }

    /// The type's default run (what `parseLine(type, …)` uses), created on first use.
    ///
    /// # Errors
    /// `ParseboxDisposedError` after dispose.
    #[wasm_bindgen(js_name = defaultRun)]
    pub fn default_run(&self, adapter_type: &str) -> Result<f64, JsValue> {
        let run = self
            .enter()?
            .long_lived_run(LongLived::Default, adapter_type)
            .map_err(host_error)?;
        Ok(run.0 as f64)
    }

    /// A new run (one `createStdoutParser()` instance) of `adapter_type`.
    ///
    /// # Errors
    /// `ParseboxDisposedError` after dispose.
    #[wasm_bindgen(js_name = createRun)]
    pub fn create_run(&self, adapter_type: &str) -> Result<f64, JsValue> {
        let run = self
            .enter()?
            .create_run(adapter_type, FailedLineEntry::Generic, false)
            .map_err(host_error)?;
        Ok(run.0 as f64)
    }

    /// Parses a line of the type's default run; JSON `{entries, late}`.
    ///
    /// # Errors
    /// `ParseboxDisposedError` after dispose; `ParseboxReentrancyError` from inside a call.
    #[wasm_bindgen(js_name = parseDefault)]
    pub fn parse_default(
        &self,
        adapter_type: &str,
        line: &str,
        ts: &str,
    ) -> Result<String, JsValue> {
        self.parse_in(LongLived::Default, adapter_type, line, ts)
    }

    /// Parses a line of the type's stateless run (Paperclip's `adapter.parseStdoutLine`: the
    /// module's own `parseStdoutLine`); JSON `{entries, late}`.
    ///
    /// # Errors
    /// `ParseboxDisposedError` after dispose; `ParseboxReentrancyError` from inside a call.
    #[wasm_bindgen(js_name = parseStateless)]
    pub fn parse_stateless(
        &self,
        adapter_type: &str,
        line: &str,
        ts: &str,
    ) -> Result<String, JsValue> {
        self.parse_in(LongLived::Stateless, adapter_type, line, ts)
    }

    /// Parses a line in the type's long-lived run that `run_of` names.
    fn parse_in(
        &self,
        which: LongLived,
        adapter_type: &str,
        line: &str,
        ts: &str,
    ) -> Result<String, JsValue> {
        let mut s = self.enter()?;
        let run = s.long_lived_run(which, adapter_type).map_err(host_error)?;
        Self::line_json(&mut s, run, line, ts)
    }

    /// Parses a line of `run`; JSON `{entries, late}`.
    ///
    /// # Errors
    /// `ParseboxRunError` for an unknown run, `ParseboxDisposedError` after dispose.
    #[wasm_bindgen(js_name = parseLine)]
    pub fn parse_line(&self, run: f64, line: &str, ts: &str) -> Result<String, JsValue> {
        let mut s = self.enter()?;
        Self::line_json(&mut s, RunId(run as u64), line, ts)
    }

    /// Resets a run (the parser's `reset()`).
    ///
    /// # Errors
    /// `ParseboxRunError` for an unknown run.
    #[wasm_bindgen(js_name = resetRun)]
    pub fn reset_run(&self, run: f64) -> Result<(), JsValue> {
        self.enter()?
            .reset_run(RunId(run as u64))
            .map_err(host_error)
    }

    /// Forgets a run. Unknown runs and a disposed core are fine (nothing to free).
    #[wasm_bindgen(js_name = dropRun)]
    pub fn drop_run(&self, run: f64) -> Result<(), JsValue> {
        let mut s = self.enter()?;
        s.drop_run(RunId(run as u64));
        Ok(())
    }

    /// Registers `source` as the type's parser; returns the status JSON (`ready` or `failed`
    /// at once for an inline engine, `loading` until a Worker engine reports).
    #[wasm_bindgen(js_name = registerSource)]
    pub fn register_source(
        &self,
        adapter_type: &str,
        source: &str,
        contract_version: Option<String>,
    ) -> Result<String, JsValue> {
        let status = self
            .enter()?
            .register_source(adapter_type, source, contract_version.as_deref())
            .map_err(host_error)?;
        to_json(&status)
    }

    /// Registers trusted host functions as the type's parser; returns the status JSON.
    #[wasm_bindgen(js_name = registerBuiltin)]
    pub fn register_builtin(
        &self,
        adapter_type: &str,
        parse_stdout_line: Option<js_sys::Function>,
        create_stdout_parser: Option<js_sys::Function>,
    ) -> Result<String, JsValue> {
        let parser = BuiltinParser::new(parse_stdout_line, create_stdout_parser)
            .map_err(|m| into_error("ParseboxOptionsError", m))?;
        let status = self
            .enter()?
            .register_builtin(adapter_type, parser)
            .map_err(host_error)?;
        to_json(&status)
    }

    /// Removes the type's top layer (an external parser gives way to the built-in beneath
    /// it, a built-in to the generic parser); returns the status JSON.
    pub fn unregister(&self, adapter_type: &str) -> Result<String, JsValue> {
        let status = self.enter()?.unregister(adapter_type).map_err(host_error)?;
        to_json(&status)
    }

    /// Clears a failure and loads the type again (over its built-in, which answers until
    /// the source arrives); returns the status JSON.
    pub fn reload(&self, adapter_type: &str) -> Result<String, JsValue> {
        let status = self.enter()?.reload(adapter_type).map_err(host_error)?;
        to_json(&status)
    }

    /// Paperclip's `loadDynamicParser(type)`: starts a load when the type has no external
    /// parser ([`Host::load_dynamic`]). Returns whether to wait for `idle()` before handing the
    /// parser over (a ready type: at once; a failed one: none).
    #[wasm_bindgen(js_name = loadDynamic)]
    pub fn load_dynamic(&self, adapter_type: &str) -> Result<bool, JsValue> {
        let step = self
            .enter()?
            .load_dynamic(adapter_type)
            .map_err(host_error)?;
        Ok(step == DynamicLoad::Wait)
    }

    /// Paperclip's `invalidateDynamicParser(type)`: drops the type's external parser
    /// ([`Host::invalidate_dynamic`]); returns whether one was ready.
    #[wasm_bindgen(js_name = invalidateDynamic)]
    pub fn invalidate_dynamic(&self, adapter_type: &str) -> Result<bool, JsValue> {
        self.enter()?
            .invalidate_dynamic(adapter_type)
            .map_err(host_error)
    }

    /// Paperclip's `buildTranscript` of the chunk list `ids` of `adapter_type` (home paths
    /// redacted with `redact`): the kept run the list goes on from takes its new chunks,
    /// `encode(i)` encoding the list's chunk `i` when the core asks for it (`[json, units?]`); a
    /// list none goes on from starts a run ([`Paperclip`]). JSON `{run, gone, shown}`: the run,
    /// the run let go, and what the page's copy of the run's entries takes
    /// ([`parsebox_live::Built`]).
    ///
    /// # Errors
    /// What `encode` throws; `ParseboxChunkError` for a chunk the core refuses;
    /// `ParseboxReentrancyError` from inside a call.
    #[wasm_bindgen(js_name = buildTranscript)]
    pub fn build_transcript(
        &self,
        adapter_type: &str,
        ids: &[f64],
        redact: bool,
        encode: Option<ChunkEncoder>,
    ) -> Result<String, JsValue> {
        let encode = encoder(encode)?;
        let mut paperclip = self.paperclip.try_borrow_mut().map_err(|_| reentered())?;
        let built = paperclip
            .build_transcript(adapter_type, &chunk_ids(ids), redact, |i| {
                chunk_at(&encode, i)
            })
            .map_err(|e| e.0)?;
        to_json(&built)
    }

    /// Lets go of the runs `buildTranscript` keeps (another registry takes this one's place).
    #[wasm_bindgen(js_name = forgetFollowed)]
    pub fn forget_followed(&self) {
        if let Ok(mut paperclip) = self.paperclip.try_borrow_mut() {
            paperclip.clear();
        }
    }

    /// What the `loadSource` hook resolved to for a `load` command, read as a
    /// [`Loaded`](parsebox_host::Loaded); the core says what it means
    /// ([`LoadResult::from_loaded`]: source text, `{ source, contractVersion? }`, or
    /// `null`/`undefined` for "this type has no parser"; anything else fails the type).
    #[wasm_bindgen(js_name = handleLoaded)]
    pub fn handle_loaded(
        &self,
        adapter_type: &str,
        token: f64,
        value: Option<Loaded>,
    ) -> Result<(), JsValue> {
        // `null` and `undefined` arrive as `None`: "this type has no parser".
        let value: JsValue = value.map_or(JsValue::NULL, Into::into);
        // What a value is, as a message says it (`typeof`, with `null` for null).
        let kind = |v: &JsValue| {
            if v.is_null() {
                "null".to_owned()
            } else {
                v.js_typeof().as_string().unwrap_or_default()
            }
        };
        let field = |key: &str| {
            let v =
                js_sys::Reflect::get(&value, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED);
            match v.as_string() {
                Some(text) => Field::Text(text),
                None if v.is_null() => Field::Nothing { shown: "null" },
                None if v.is_undefined() => Field::Nothing { shown: "undefined" },
                None => Field::Other(kind(&v)),
            }
        };
        let loaded = if value.is_null() || value.is_undefined() {
            parsebox_host::Loaded::Nothing
        } else if let Some(source) = value.as_string() {
            parsebox_host::Loaded::Text(source)
        } else if value.is_object() {
            parsebox_host::Loaded::Object {
                source: field("source"),
                contract_version: field("contractVersion"),
            }
        } else {
            parsebox_host::Loaded::Other(kind(&value))
        };
        let result = LoadResult::from_loaded(adapter_type, loaded);
        self.load_result(adapter_type, token, result)
    }

    /// The `loadSource` hook threw or rejected for a `load` command: the type fails with
    /// `message`.
    #[wasm_bindgen(js_name = handleLoadFailed)]
    pub fn handle_load_failed(
        &self,
        adapter_type: &str,
        token: f64,
        message: &str,
    ) -> Result<(), JsValue> {
        self.load_result(adapter_type, token, LoadResult::Failed(message.to_owned()))
    }

    /// The engine module was compiled: parsers waiting for it start now.
    #[wasm_bindgen(js_name = handleEngineModuleReady)]
    pub fn handle_engine_module_ready(&self) -> Result<(), JsValue> {
        self.engine_module(Ok(()))
    }

    /// The engine module could not be loaded (`message` says why): sandboxed parsers fail to
    /// start with an `engine_fault` load error.
    #[wasm_bindgen(js_name = handleEngineModuleFailed)]
    pub fn handle_engine_module_failed(&self, message: &str) -> Result<(), JsValue> {
        self.engine_module(Err(message.to_owned()))
    }

    /// Hands the engine module's outcome to the host and performs what follows.
    fn engine_module(&self, result: Result<(), String>) -> Result<(), JsValue> {
        self.enter()?.engine_module(result);
        Ok(())
    }

    /// A Worker engine reported its start: JSON `{"Ok": {entryPoint, module}}` or `{"Err": loadError}`.
    #[wasm_bindgen(js_name = handleEngineStarted)]
    pub fn handle_engine_started(&self, engine: f64, result_json: &str) -> Result<(), JsValue> {
        self.enter()?
            .worker_started(EngineId(engine as u64), result_json);
        Ok(())
    }

    /// A Worker engine is starting line `seq` (arms its deadline). Returns when to call
    /// `handleTimeout()` next (ms on `performance.now()`'s clock; `undefined`: no deadline): a
    /// `began` leads to no command, so the page only re-arms its timer.
    #[wasm_bindgen(js_name = handleBegan)]
    pub fn handle_began(&self, engine: f64, seq: f64) -> Result<Option<f64>, JsValue> {
        Ok(self
            .enter()?
            .worker_began(EngineId(engine as u64), seq as u64))
    }

    /// A Worker engine's count of work moved on while it works on a line: its deadline moves
    /// (the clock ends only an engine that stopped making progress). Returns when to call
    /// `handleTimeout()` next, as `handleBegan` does.
    #[wasm_bindgen(js_name = handleProgress)]
    pub fn handle_progress(&self, engine: f64) -> Result<Option<f64>, JsValue> {
        Ok(self.enter()?.worker_progress(EngineId(engine as u64)))
    }

    /// A Worker engine's answers: the answers of the records it ran since it last posted, each
    /// JSON `[[seq, outcome], …]` ([`EngineAnswer`](parsebox_host::EngineAnswer)), in order. A malformed one is the
    /// engine's fault: it is treated as the engine dying.
    #[wasm_bindgen(js_name = handleAnswers)]
    pub fn handle_answers(&self, engine: f64, answers_json: Vec<String>) -> Result<(), JsValue> {
        self.enter()?
            .worker_answered(EngineId(engine as u64), &answers_json);
        Ok(())
    }

    /// A Worker engine died: `name` and `description` of what it threw (`name` empty for an
    /// `error` event), and `requestedBytes`, the allocation that did not fit when its memory
    /// reached the maximum (0 otherwise). The core classifies it
    /// ([`EngineDeath::classify`](parsebox_live::EngineDeath::classify)).
    #[wasm_bindgen(js_name = handleEngineDied)]
    pub fn handle_engine_died(
        &self,
        engine: f64,
        name: &str,
        description: String,
        requested_bytes: f64,
    ) -> Result<(), JsValue> {
        let death = parsebox_live::EngineDeath::classify(name, description, requested_bytes);
        self.enter()?.worker_died(EngineId(engine as u64), death);
        Ok(())
    }

    /// The timer set at `poll()`'s `timeoutMs` fired.
    #[wasm_bindgen(js_name = handleTimeout)]
    pub fn handle_timeout(&self) -> Result<(), JsValue> {
        self.enter()?.timeout_fired();
        Ok(())
    }

    /// What the JS driver does next: JSON `{"commands":[…],"timeoutMs":ms|null,"idle":bool}`,
    /// the commands waiting (see `ExecutorCommand`), in order, when to call `handleTimeout()`
    /// (ms on `performance.now()`'s clock; `null`: no deadline is armed), and whether nothing is
    /// under way once they are performed (what `idle()` waits for); then the ops frame of each
    /// `send` command, in order (`parsebox_protocol::wire`; empty when there is nothing left to
    /// post). Post each as is: the Worker's engine performs it a record at a time. One call per
    /// drain.
    #[wasm_bindgen(unchecked_return_type = "[polled: string, ...ops: Uint8Array[]]")]
    pub fn poll(&self) -> Result<js_sys::Array, JsValue> {
        let polled = self.enter()?.poll();
        let out = js_sys::Array::of1(&JsValue::from(to_json(&polled)?));
        for ops in polled.ops {
            out.push(&js_sys::Uint8Array::from(ops.as_slice()));
        }
        Ok(out)
    }

    /// What waits for this frame (a `frame` command asked for it): JSON
    /// `{"updates":[[run,n]…],"followers":[run…],"lines":[[type,[{line,ts,entries}…]]…],"followed":bool}`,
    /// then the strings of each update, in order. The late answers of every transcript builder
    /// and followed run are folded in here: each builder in `updates` takes its `n` strings
    /// (`push`'s result shape); tell the listeners of the followed runs in `followers`,
    /// `onChange` of each type's line updates, and Paperclip's notifier when `followed`.
    ///
    /// # Errors
    /// `ParseboxReentrancyError` from inside a call.
    #[wasm_bindgen(
        js_name = takeFrame,
        unchecked_return_type = "[frame: string, ...updates: string[]]"
    )]
    pub fn take_frame(&self) -> Result<js_sys::Array, JsValue> {
        // Held before the frame is taken: a frame taken is folded in whole or not at all.
        let mut paperclip = self.paperclip.try_borrow_mut().map_err(|_| reentered())?;
        let mut transcripts = self.transcripts.try_borrow_mut().map_err(|_| reentered())?;
        let mut followers = self.followers.try_borrow_mut().map_err(|_| reentered())?;
        let frame = self.enter()?.take_frame();
        let mut runs = frame.builders;
        let followed = paperclip.at_frame(&mut runs).map_err(transcript_error)?;
        let mut updates = Vec::new();
        let mut strings = Vec::new();
        let mut buf = Vec::new();
        transcripts.at_frame(&mut runs, |run, update| -> Result<(), JsValue> {
            let parts = encode_update(&mut buf, &update)?;
            updates.push((run.0, parts.len()));
            strings.extend(parts);
            Ok(())
        })?;
        let mut changed = Vec::new();
        followers.at_frame(&mut runs, |run, ()| -> Result<(), JsValue> {
            changed.push(run.0);
            Ok(())
        })?;
        // The runs left have nothing of the page's that holds them (a builder let go of).
        let out = js_sys::Array::of1(&JsValue::from(to_json(&PageFrame {
            updates,
            followers: changed,
            lines: frame.lines,
            followed,
        })?));
        for s in strings {
            out.push(&s);
        }
        Ok(out)
    }

    /// Status JSON of a type.
    pub fn status(&self, adapter_type: &str) -> Result<String, JsValue> {
        to_json(&self.enter()?.host().status(adapter_type))
    }

    /// Diagnostics JSON of a type, or of all types.
    pub fn diagnostics(&self, adapter_type: Option<String>) -> Result<String, JsValue> {
        to_json(&self.enter()?.host().diagnostics(adapter_type.as_deref()))
    }

    /// Ends every engine and forgets everything; later calls throw `ParseboxDisposedError`.
    /// From inside a call (a built-in parser disposing its registry) it takes effect when that
    /// call returns. The final `end` commands are in `poll()`.
    pub fn dispose(&self) {
        self.forget_followed();
        self.core.dispose();
    }
}
