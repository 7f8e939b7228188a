//! Counters a viewer shows so people can see what a parser did: the host core's
//! [`Diagnostics`], counted with its one function ([`parsebox_host::count_line`]).

pub use parsebox_host::Diagnostics;
