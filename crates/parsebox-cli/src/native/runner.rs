//! Why `parsebox parse`'s parser did not start on the live core (the engine a process of the
//! command, `hosted`).

/// Why a parser did not start.
#[derive(Debug)]
pub enum StartError {
    /// What runs the parser (its engine process) could not be made, or ended while starting.
    Thread(String),
    /// The engine process refused the parser, as the core reports it.
    Hosted(parsebox_host::LoadError),
}

impl StartError {
    /// One line for the user.
    pub fn describe(&self) -> String {
        match self {
            Self::Thread(e) => e.clone(),
            Self::Hosted(e) => crate::native::check::describe_core_load_error(e),
        }
    }
}
