//! A parser source checked and loaded ([`ParserModule`]), the entry point it is driven through,
//! and the realm made ahead of any parser ([`BlankRealm`]).

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

use crate::clock::now_ms;
use crate::exports::ModuleExports;
use crate::load_error::{LoadError, LoadErrorCode};
use crate::realm::{init_error, Blank, Realm, SetupKey};
use crate::source::{self, Prepared};
use crate::{EntryPoint, SandboxOptions};

/// A realm made ahead of any parser: the context, the host functions and the prelude, which
/// are most of what a load costs. [`ParserModule::load_with`] loads a parser into it. The
/// engine module makes one when it is built and keeps it in its memory image, so every engine
/// instance starts with one (crates/parsebox-engine-wasm).
pub struct BlankRealm(Blank);

impl fmt::Debug for BlankRealm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("BlankRealm").field(&self.0.key).finish()
    }
}

impl BlankRealm {
    /// Builds the realm with `options`' constants.
    ///
    /// # Errors
    /// An `engine_fault` [`LoadError`] when the engine cannot set up a realm (a bug).
    pub fn new(options: &SandboxOptions) -> Result<BlankRealm, LoadError> {
        Blank::new(options).map(BlankRealm).map_err(init_error)
    }

    /// Whether a parser loaded with `options` may use this realm: the options the prelude bakes
    /// in (the built-ins' caps and the result caps) are equal. Budgets, boa's runtime limits
    /// and the regex limits are laid on at load time, so they may differ.
    pub fn suits(&self, options: &SandboxOptions) -> bool {
        self.0.key == SetupKey::of(options)
    }
}

/// A checked, loadable parser source: static checks passed and a trial evaluation found its
/// entry point. Cheap to keep; [`ParserModule::new_run`] makes the realms.
#[derive(Clone, Debug)]
pub struct ParserModule {
    pub(crate) prepared: Prepared,
    pub(crate) options: SandboxOptions,
    pub(crate) entry: EntryPoint,
    exports: ModuleExports,
    spare: Spare,
}

/// The trial realm of [`ParserModule::load`], kept for the first [`ParserModule::new_run`]: it
/// is exactly what a fresh run needs (module evaluated, one instance made, time 0, `Math.random`
/// freshly seeded, nothing else run), and building a realm is most of a run's start-up cost
/// (parsing the prelude). Shared by clones; taken once.
#[derive(Clone, Default)]
struct Spare(Rc<RefCell<Option<Realm>>>);

impl fmt::Debug for Spare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kept = self.0.try_borrow().map(|r| r.is_some()).unwrap_or(false);
        f.debug_tuple("Spare").field(&kept).finish()
    }
}

impl ParserModule {
    /// Checks and trial-loads `source`.
    ///
    /// # Errors
    /// A [`LoadError`] for a source over `max_source_bytes`, any import (`import`, `require(`,
    /// `import()`, `import.meta`, re-exports), top-level await, a syntax error (with line and
    /// column in the original source), a regex literal with a catastrophic shape, no usable
    /// export, a factory that does not return `{ parseLine }`, or an initialisation that throws
    /// or exceeds its budget.
    pub fn load(source: &str, options: SandboxOptions) -> Result<ParserModule, LoadError> {
        ParserModule::load_with(source, options, &mut None)
    }

    /// Now on the clock this module's budgets use, in milliseconds (any origin): an embedder
    /// times its own work around the sandbox's on the same clock.
    pub fn now_ms(&self) -> f64 {
        now_ms(&self.options)
    }

    /// [`load`](Self::load), building the trial realm from `blank` when it suits `options`
    /// ([`BlankRealm::suits`]): the load then skips most of a realm's set-up. `blank` is taken
    /// when the load reaches its trial evaluation (whatever that evaluation's outcome), and left
    /// in place when a static check refuses the source first or it does not suit `options`.
    ///
    /// # Errors
    /// As [`load`](Self::load).
    pub fn load_with(
        source: &str,
        options: SandboxOptions,
        blank: &mut Option<BlankRealm>,
    ) -> Result<ParserModule, LoadError> {
        if source.len() > options.max_source_bytes {
            return Err(LoadError::new(
                LoadErrorCode::TooLarge,
                format!(
                    "parser source is {} bytes; the limit is {}",
                    source.len(),
                    options.max_source_bytes
                ),
            ));
        }
        let prepared = source::prepare(source, options.max_regex_source, options.screen_regexes)?;
        let realm = match blank.take_if(|b| b.suits(&options)) {
            Some(BlankRealm(b)) => Realm::from_blank_or_again(b, &prepared, &options),
            None => Realm::new(&prepared, &options),
        }
        .map_err(init_error)?;
        Ok(ParserModule {
            entry: realm.entry,
            exports: ModuleExports::new(&prepared, &realm),
            prepared,
            options,
            spare: Spare(Rc::new(RefCell::new(Some(realm)))),
        })
    }

    /// The export the parser is driven through.
    pub fn entry_point(&self) -> EntryPoint {
        self.entry
    }

    /// What the module exports: its format, which contract exports it has (an ES module's
    /// static export names; a CommonJS module's functions found by the trial evaluation) and an
    /// ES module's other export names.
    pub fn exports(&self) -> &ModuleExports {
        &self.exports
    }

    /// A realm for a new run: the load's trial realm the first time (exactly what a fresh run
    /// needs), a new one after that.
    pub(crate) fn realm_for_run(&self) -> Result<Realm, LoadError> {
        let spare = self
            .spare
            .0
            .try_borrow_mut()
            .ok()
            .and_then(|mut s| s.take());
        match spare {
            Some(realm) => Ok(realm),
            None => Realm::new(&self.prepared, &self.options).map_err(init_error),
        }
    }

    /// The options this module was loaded with.
    pub fn options(&self) -> &SandboxOptions {
        &self.options
    }
}
