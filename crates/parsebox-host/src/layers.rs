//! Built-in and external layers of one adapter type, Paperclip's override rules: an external
//! parser (a registered or loaded source) answers over a built-in; when it fails to load,
//! the loader has none, or it is unregistered, the built-in answers again.

use crate::{AdapterState, AdapterStatus, Host, HostError, Placement};

/// Why an unregistered type without a built-in answers generically.
const UNREGISTERED: &str =
    "unregistered: the generic parser answers until the type is registered or reloaded";

impl Host {
    /// Registers a trusted built-in parser for `adapter_type`: the executor calls the host JS
    /// function it holds for the type. Its engine is never ended at a deadline. An external
    /// parser that answers or is loading stays on top; the built-in lies beneath it.
    ///
    /// # Errors
    /// [`HostError::Disposed`] after [`Host::dispose`].
    pub fn register_builtin(&mut self, adapter_type: &str) -> Result<AdapterStatus, HostError> {
        self.check_live()?;
        let beneath = self.adapters.get(adapter_type).is_some_and(|a| {
            a.load_token != 0 || matches!(a.state, AdapterState::Loading | AdapterState::Ready)
        });
        if beneath {
            if let Some(a) = self.adapters.get_mut(adapter_type) {
                a.has_builtin = true;
            }
            self.changed(adapter_type);
        } else {
            self.install_builtin(adapter_type);
        }
        Ok(self.status(adapter_type))
    }

    /// Removes `adapter_type`'s top layer: an external parser (answering, loading or failed)
    /// gives way to the built-in beneath it; a built-in, or an external parser with nothing
    /// beneath, gives way to the generic parser, with no new load until `reload` or a
    /// registration. The binding drops a built-in's functions once `has_builtin` is false.
    ///
    /// # Errors
    /// [`HostError::Disposed`] after [`Host::dispose`].
    pub fn unregister(&mut self, adapter_type: &str) -> Result<AdapterStatus, HostError> {
        self.check_live()?;
        let (external, builtin) = self
            .adapters
            .get(adapter_type)
            .map_or((false, false), |a| (a.external_layer(), a.has_builtin));
        if builtin && external {
            self.install_builtin(adapter_type);
        } else {
            self.replace_parser(adapter_type);
            if let Some(a) = self.adapters.get_mut(adapter_type) {
                a.has_builtin = false;
                a.state = AdapterState::Generic;
                a.reason = Some(UNREGISTERED.to_owned());
                a.error = None;
                a.source = None;
                a.contract_version = None;
            }
            self.changed(adapter_type);
        }
        Ok(self.status(adapter_type))
    }

    /// Makes the built-in the type's parser (a new generation and engine), clearing any
    /// external layer and its load.
    pub(crate) fn install_builtin(&mut self, adapter_type: &str) {
        self.replace_parser(adapter_type);
        if let Some(a) = self.adapters.get_mut(adapter_type) {
            a.has_builtin = true;
            a.state = AdapterState::Builtin;
            a.placement = Placement::Builtin;
            a.reason = None;
            a.error = None;
            a.source = None;
            a.contract_version = None;
        }
        self.start_engine(0.0, adapter_type);
        self.changed(adapter_type);
    }

    /// After the external parser over a built-in failed (the failure stays in the status as
    /// data, `reason` says the built-in answers): the built-in answers again. Returns whether
    /// there was one.
    pub(crate) fn fall_back_to_builtin(&mut self, adapter_type: &str) -> bool {
        let Some(a) = self.adapters.get(adapter_type) else {
            return false;
        };
        if !a.has_builtin {
            return false;
        }
        let (reason, error) = (a.reason.clone(), a.error.clone());
        if a.state == AdapterState::Builtin {
            // The external parser's load failed while the built-in kept answering.
            if let Some(a) = self.adapters.get_mut(adapter_type) {
                a.load_token = 0;
            }
            self.changed(adapter_type);
        } else {
            self.install_builtin(adapter_type);
        }
        if let Some(a) = self.adapters.get_mut(adapter_type) {
            a.reason =
                reason.map(|r| format!("the external parser failed ({r}); the built-in answers"));
            a.error = error;
        }
        true
    }
}
