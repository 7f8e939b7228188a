//! The registry's calls: registering, reloading and dropping parsers and runs, the page's
//! lines, the loader's and the engine module's results; each passed to the host core,
//! whose commands are then performed ([`LiveCore::pump`]).

use parsebox_host::{AdapterStatus, DynamicLoad, HostError, LoadResult, RunId, Seq};
use parsebox_transcript::{FailedLineEntry, TranscriptEntry};

use super::{LiveCore, LongLived};
use crate::executor::Executor;

impl<X: Executor> LiveCore<X> {
    /// What the page's loader found for a `load` command.
    pub fn loaded(&mut self, adapter_type: &str, token: u64, result: LoadResult) {
        let now = self.executor.now_ms();
        self.host
            .handle_load_result(now, adapter_type, token, result);
        self.pump();
    }

    /// The engine module was compiled (`Ok`) or could not be loaded (why): parsers waiting for
    /// it start now, or fail with an `engine_fault` load error.
    pub fn engine_module(&mut self, result: Result<(), String>) {
        let now = self.executor.now_ms();
        self.host.handle_engine_module(now, result);
        self.pump();
    }

    /// Registers `source` as `adapter_type`'s parser now; its status after the commands it led
    /// to (`ready` or `failed` at once for an inline engine, `loading` until a Worker reports).
    ///
    /// # Errors
    /// [`HostError::Disposed`] after [`dispose`](Self::dispose).
    pub fn register_source(
        &mut self,
        adapter_type: &str,
        source: &str,
        contract_version: Option<&str>,
    ) -> Result<AdapterStatus, HostError> {
        let now = self.executor.now_ms();
        self.host
            .register_source(now, adapter_type, source, contract_version)?;
        Ok(self.status(adapter_type))
    }

    /// Registers `parser`, trusted page code, as `adapter_type`'s built-in (it replaces one
    /// registered before); its status.
    ///
    /// # Errors
    /// [`HostError::Disposed`] after [`dispose`](Self::dispose).
    pub fn register_builtin(
        &mut self,
        adapter_type: &str,
        parser: X::Builtin,
    ) -> Result<AdapterStatus, HostError> {
        self.host.register_builtin(adapter_type)?;
        self.builtin_parsers.insert(adapter_type.to_owned(), parser);
        Ok(self.status(adapter_type))
    }

    /// Removes `adapter_type`'s top layer (an external parser gives way to the built-in beneath
    /// it, a built-in to the generic parser), and forgets a built-in that no layer uses now;
    /// its status.
    ///
    /// # Errors
    /// [`HostError::Disposed`] after [`dispose`](Self::dispose).
    pub fn unregister(&mut self, adapter_type: &str) -> Result<AdapterStatus, HostError> {
        let status = self.host.unregister(adapter_type)?;
        if !status.has_builtin {
            self.builtin_parsers.remove(adapter_type);
        }
        Ok(self.status(adapter_type))
    }

    /// Clears a failure and loads `adapter_type` again (over its built-in, which answers until
    /// the source arrives); its status.
    ///
    /// # Errors
    /// [`HostError::Disposed`] after [`dispose`](Self::dispose).
    pub fn reload(&mut self, adapter_type: &str) -> Result<AdapterStatus, HostError> {
        let now = self.executor.now_ms();
        self.host.reload(now, adapter_type)?;
        Ok(self.status(adapter_type))
    }

    /// `adapter_type`'s status, once the commands waiting are performed.
    pub fn status(&mut self, adapter_type: &str) -> AdapterStatus {
        self.pump();
        self.host.status(adapter_type)
    }

    /// A new run (one `createStdoutParser()` instance) of `adapter_type`, its failed lines
    /// showing `style`; `owned`: a transcript builder's run, whose late answers wait for the
    /// builder's frame instead of going to `onChange` listeners as line updates.
    ///
    /// # Errors
    /// [`HostError::Disposed`] after [`dispose`](Self::dispose).
    pub fn create_run(
        &mut self,
        adapter_type: &str,
        style: FailedLineEntry,
        owned: bool,
    ) -> Result<RunId, HostError> {
        let run = self.host.create_run_showing(adapter_type, style)?;
        if owned {
            self.builder_runs.insert(run);
        }
        self.pump();
        Ok(run)
    }

    /// The run of `adapter_type` that `which` names, made on first use.
    ///
    /// # Errors
    /// [`HostError::Disposed`] after [`dispose`](Self::dispose).
    pub fn long_lived_run(
        &mut self,
        which: LongLived,
        adapter_type: &str,
    ) -> Result<RunId, HostError> {
        let run = match which {
            LongLived::Default => self.host.default_run(adapter_type)?,
            LongLived::Stateless => self.host.stateless_run(adapter_type)?,
        };
        self.pump();
        Ok(run)
    }

    /// A call of the page parses one line of `run` (its parser time is summed against
    /// `callBudgetMs` from here): [`parse_line`](Self::parse_line)'s result.
    ///
    /// # Errors
    /// The host core's misuse errors (an unknown run, a disposed core).
    pub fn parse_page_line(
        &mut self,
        run: RunId,
        line: &str,
        ts: &str,
    ) -> Result<(Vec<TranscriptEntry>, Option<Seq>), HostError> {
        self.host.begin_call();
        self.parse_line(run, line, ts)
    }

    /// Paperclip's `loadDynamicParser(type)`: starts a load when the type has no external
    /// parser ([`Host::load_dynamic`](parsebox_host::Host::load_dynamic)).
    ///
    /// # Errors
    /// [`HostError::Disposed`] after [`dispose`](Self::dispose).
    pub fn load_dynamic(&mut self, adapter_type: &str) -> Result<DynamicLoad, HostError> {
        let step = self.host.load_dynamic(adapter_type)?;
        self.pump();
        Ok(step)
    }

    /// Paperclip's `invalidateDynamicParser(type)`: drops the type's external parser
    /// ([`Host::invalidate_dynamic`](parsebox_host::Host::invalidate_dynamic)); whether one was ready.
    ///
    /// # Errors
    /// [`HostError::Disposed`] after [`dispose`](Self::dispose).
    pub fn invalidate_dynamic(&mut self, adapter_type: &str) -> Result<bool, HostError> {
        let was_ready = self.host.invalidate_dynamic(adapter_type)?;
        self.pump();
        Ok(was_ready)
    }

    /// Calls `run`'s `reset()` and performs what follows: a builder's reset and the page's
    /// `resetRun` go through here alike.
    ///
    /// # Errors
    /// The host core's misuse errors (an unknown run, a disposed core).
    pub fn reset_run(&mut self, run: RunId) -> Result<(), HostError> {
        let result = self.host.reset_run(run);
        self.pump();
        result
    }

    /// Lets `run` go, everywhere it is known: the host core, the builder runs, what waits for
    /// the frame. A run unknown to the core (dropped before, its type
    /// disposed) is fine.
    pub fn drop_run(&mut self, run: RunId) {
        // Unknown runs and a disposed core are fine: there is nothing to free.
        let _ = self.host.drop_run(run);
        self.builder_runs.remove(&run);
        self.rooms.remove(&run);
        self.frame.forget(run);
        self.pump();
    }
}
