//! Why `parsebox parse`'s parser did not start: the same on both of its runs (natively on the
//! live core, the engine a process of the command, `hosted`; under WASI a sandbox run in this
//! thread, `threaded`).

#[cfg(target_os = "wasi")]
use parsebox_sandbox::LoadError;

/// Why a parser did not start.
#[derive(Debug)]
pub enum StartError {
    /// The module did not load (WASI: the sandbox in this thread).
    #[cfg(target_os = "wasi")]
    Load(LoadError),
    /// The module loaded, but a run of it could not start (WASI).
    #[cfg(target_os = "wasi")]
    Run(LoadError),
    /// What runs the parser could not be made (its thread, its engine process), or ended while
    /// starting (WASI makes neither).
    #[cfg_attr(target_os = "wasi", allow(dead_code))]
    Thread(String),
    /// The engine process refused the parser, as the core reports it.
    #[cfg(not(target_os = "wasi"))]
    Hosted(parsebox_host::LoadError),
}

impl StartError {
    /// One line for the user.
    pub fn describe(&self) -> String {
        match self {
            #[cfg(target_os = "wasi")]
            Self::Load(e) | Self::Run(e) => crate::check::describe_load_error(e),
            Self::Thread(e) => e.clone(),
            #[cfg(not(target_os = "wasi"))]
            Self::Hosted(e) => crate::check::describe_core_load_error(e),
        }
    }
}
