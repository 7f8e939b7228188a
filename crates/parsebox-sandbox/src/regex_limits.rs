//! The regex limits of a realm (`maxRegexSource`, the shape screen, `maxRegexInput`), kept as
//! context data, and the input cap every regex method applies: one place for the guarded `exec`
//! (realm/blank.rs) and the native regex methods (regex_methods.rs) to read them.

use boa_engine::{Context, JsNativeError, JsResult};

use crate::SandboxOptions;

/// The regex limits the realm's native functions read when they run (context data, so a blank
/// realm made ahead of time takes the options of the parser loaded into it).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RegexLimits {
    pub(crate) max_source: usize,
    pub(crate) screen_shapes: bool,
    pub(crate) max_input: usize,
}

impl RegexLimits {
    pub(crate) fn of(opts: &SandboxOptions) -> RegexLimits {
        RegexLimits {
            max_source: opts.max_regex_source,
            screen_shapes: opts.screen_regexes,
            max_input: opts.max_regex_input,
        }
    }

    pub(crate) fn get(ctx: &Context) -> RegexLimits {
        // Installed by `Blank::new`; the defaults only if a realm lost its data (a bug).
        ctx.get_data::<RegexLimits>()
            .copied()
            .unwrap_or_else(|| RegexLimits::of(&SandboxOptions::default()))
    }
}

/// The guarded `exec`'s input cap: a `RangeError` for a regex input of `len` code units past
/// `maxRegexInput` (the native regex methods check the same where their `exec` would be called).
pub(crate) fn check_regex_input(len: usize, ctx: &Context) -> JsResult<()> {
    let max_input = RegexLimits::get(ctx).max_input;
    if len > max_input {
        return Err(JsNativeError::range()
            .with_message(format!(
                "parsebox: regex input length of {len} exceeds the sandbox limit of {max_input}"
            ))
            .into());
    }
    Ok(())
}

/// The regex screen's settings of the realm: `maxRegexSource` and whether shapes are screened
/// (what the prelude's `RegExp` passes to the screen).
pub(crate) fn regex_limits(ctx: &Context) -> (usize, bool) {
    let limits = RegexLimits::get(ctx);
    (limits.max_source, limits.screen_shapes)
}
