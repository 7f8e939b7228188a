//! Paperclip's dynamic-parser calls on one adapter type (`loadDynamicParser`,
//! `invalidateDynamicParser` of the `parsebox/paperclip` entry): what each does for the type's
//! state, decided here so the drop-in's JS only waits and hands the parser over.

use crate::{AdapterState, Host, HostError};

/// What `loadDynamicParser(type)` does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DynamicLoad {
    /// The type's external parser answers: hand it over now.
    Ready,
    /// A load is on its way (started now, or already out): wait for the registry to be idle,
    /// then hand the parser over if the type is ready.
    Wait,
    /// The type's external parser failed or was missing: no parser (`null`) until
    /// `invalidateDynamicParser` clears it.
    NoParser,
}

impl Host {
    /// `loadDynamicParser(type)`: a ready type answers at once; a type with no external layer
    /// (never loaded, unregistered, or only a built-in) starts a load; a load in flight is
    /// waited for, also an override's while its built-in answers (a second call while the
    /// first waits gets the same parser); a failed or missing external parser is not retried.
    /// With no loader, a type with no external parser has none.
    ///
    /// # Errors
    /// [`HostError::Disposed`] after [`Host::dispose`].
    pub fn load_dynamic(&mut self, adapter_type: &str) -> Result<DynamicLoad, HostError> {
        self.check_live()?;
        let status = self.status(adapter_type);
        if status.state == AdapterState::Ready {
            return Ok(DynamicLoad::Ready);
        }
        if !status.has_external {
            // With no loader there is nothing to ask for.
            if !self.options.load_sources {
                return Ok(DynamicLoad::NoParser);
            }
            self.reload(0.0, adapter_type)?;
            return Ok(DynamicLoad::Wait);
        }
        let load_out = self
            .adapters
            .get(adapter_type)
            .is_some_and(|a| a.load_token != 0);
        Ok(if load_out {
            DynamicLoad::Wait
        } else {
            DynamicLoad::NoParser
        })
    }

    /// `invalidateDynamicParser(type)`: drops the type's external layer (ready, loading or
    /// failed; a built-in beneath answers again) so the next `loadDynamicParser` loads afresh.
    /// Returns whether an external parser was ready.
    ///
    /// # Errors
    /// [`HostError::Disposed`] after [`Host::dispose`].
    pub fn invalidate_dynamic(&mut self, adapter_type: &str) -> Result<bool, HostError> {
        self.check_live()?;
        let status = self.status(adapter_type);
        if status.has_external {
            self.unregister(adapter_type)?;
        }
        Ok(status.state == AdapterState::Ready)
    }
}
