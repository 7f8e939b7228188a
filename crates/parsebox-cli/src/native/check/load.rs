//! The checks on the file itself: size, imports, load (the module's shape and exports, or why
//! it did not load) and encoding. They come from [`ParserModule::load`], with the size limit
//! lifted so that an oversized file still gets every other check.

use parsebox_sandbox::{LoadError, LoadErrorCode, ParserModule, SandboxOptions};

use crate::native::inspect::{inspect, ModuleShape};
use crate::native::report::{Check, Status};

/// The module loaded by [`module_checks`], and its shape for the report.
pub(super) struct Loaded {
    /// The module, when it loaded.
    pub(super) module: Option<ParserModule>,
    /// Its shape, when it loaded.
    pub(super) shape: Option<ModuleShape>,
}

/// Pushes the size, imports, load and encoding checks of `source` (`utf8`: whether the file was
/// valid UTF-8) to `checks`. `ended_at_start`: the parser's engine ended while starting it (the
/// module's evaluation ran past the deadline, or the engine died), as this sentence says; the
/// module is then not loaded here, where nothing could end an evaluation that never returns.
pub(super) fn module_checks(
    source: &str,
    utf8: bool,
    options: &SandboxOptions,
    ended_at_start: Option<String>,
    checks: &mut Vec<Check>,
) -> Loaded {
    // Size.
    let limit = options.max_source_bytes;
    let size = source.len();
    let pct = size.saturating_mul(100).checked_div(limit).unwrap_or(100);
    checks.push(if size <= limit {
        Check::new(
            "size",
            "size",
            Status::Pass,
            format!(
                "{} bytes of {} allowed ({pct}%)",
                thousands(size),
                thousands(limit)
            ),
        )
    } else {
        Check::new(
            "size",
            "size",
            Status::Fail,
            format!(
                "{} bytes: over the {}-byte limit; Paperclip refuses to load it",
                thousands(size),
                thousands(limit)
            ),
        )
    });

    // Imports and load (the size limit lifted, so an oversized file gets the other checks too).
    let load_options = SandboxOptions {
        max_source_bytes: usize::MAX,
        ..options.clone()
    };
    if let Some(said) = ended_at_start {
        checks.push(Check::new(
            "imports",
            "imports",
            Status::Skip,
            "not determined (the load stopped earlier)".into(),
        ));
        checks.push(
            Check::new("load", "module", Status::Fail, said).with_details(vec![
                "the module's evaluation and createStdoutParser() must end: one native operation at its top level (a regex, split or replace over a long string, building a huge one) ran past the deadline, or the engine died".into(),
            ]),
        );
        return Loaded {
            module: None,
            shape: None,
        };
    }
    let loaded = ParserModule::load(source, load_options);
    let mut module_shape: Option<ModuleShape> = None;
    let module = match loaded {
        Ok(m) => {
            checks.push(Check::new(
                "imports",
                "imports",
                Status::Pass,
                "none (no import, require() or import())".into(),
            ));
            let shape = inspect(&m);
            checks.push(Check::new(
                "load",
                "module",
                Status::Pass,
                describe_shape(&shape),
            ));
            module_shape = Some(shape);
            Some(m)
        }
        Err(e) if e.code == LoadErrorCode::Imports => {
            checks.push(Check::new("imports", "imports", Status::Fail, describe_load_error(&e)).with_details(vec![
                "a ui-parser must have zero imports: bundle everything into the one file (esbuild --bundle)".into(),
            ]));
            checks.push(Check::new(
                "load",
                "module",
                Status::Skip,
                "not loaded: the sandbox refuses modules with imports".into(),
            ));
            None
        }
        Err(e) => {
            checks.push(if e.code == LoadErrorCode::UnsafeRegex {
                Check::new(
                    "imports",
                    "imports",
                    Status::Skip,
                    "not determined (the load stopped earlier)".into(),
                )
            } else {
                Check::new(
                    "imports",
                    "imports",
                    Status::Pass,
                    "none (no import, require() or import())".into(),
                )
            });
            let details = load_hint(e.code)
                .map(|h| vec![h.to_owned()])
                .unwrap_or_default();
            checks.push(
                Check::new("load", "module", Status::Fail, describe_load_error(&e))
                    .with_details(details),
            );
            None
        }
    };
    if !utf8 {
        checks.push(Check::new(
            "encoding",
            "encoding",
            Status::Fail,
            "the file is not valid UTF-8; Paperclip serves it as UTF-8 text, so the bad bytes become U+FFFD".into(),
        ));
    }
    Loaded {
        module,
        shape: module_shape,
    }
}

/// A load error as one line: code, message, and where in the source when known.
pub fn describe_load_error(e: &LoadError) -> String {
    describe_load_parts(&e.code, &e.message, e.line, e.column)
}

/// [`describe_load_error`] of a load error as the core reports it (the engine's, by its code's name).
pub fn describe_core_load_error(e: &parsebox_host::LoadError) -> String {
    describe_load_parts(&e.code, &e.message, e.line, e.column)
}

/// One line for a load error's parts: `code: message`, then where, unless the message says it.
fn describe_load_parts(
    code: &dyn std::fmt::Display,
    message: &str,
    line: Option<u32>,
    column: Option<u32>,
) -> String {
    let mut s = format!("{code}: {message}");
    if let (Some(l), Some(c)) = (line, column) {
        if !message.contains(&format!("{l}:{c}")) {
            s.push_str(&format!(" (at {l}:{c})"));
        }
    }
    s
}

/// What to do about a load error, for the report.
fn load_hint(code: LoadErrorCode) -> Option<&'static str> {
    use LoadErrorCode as C;
    Some(match code {
        C::SyntaxError => "the file must parse as an ES2023 script or module",
        C::NoExport => "export createStdoutParser() (stateful) and/or parseStdoutLine(line, ts) (stateless)",
        C::BadFactory => "createStdoutParser() must return an object with parseLine(line, ts) and reset()",
        C::TopLevelAwait => "a ui-parser is evaluated synchronously: move the await into a function",
        C::UnsafeRegex => "rewrite the regex without nested or overlapping quantifiers",
        C::InitThrew => "module evaluation and createStdoutParser() may not throw; they run with no host globals",
        C::InitBudgetExceeded => "module evaluation plus createStdoutParser() must finish within the init budget",
        C::UnsupportedModule => "the ES module could not be rewritten for the sandbox; please report this file",
        C::EngineFault | C::Imports | C::InitMemoryExceeded | C::TooLarge => return None,
    })
}

/// The `load` check's summary: "ES module exporting … ; the sandbox drives …".
fn describe_shape(s: &ModuleShape) -> String {
    let format = if s.is_esm() {
        "ES module"
    } else {
        "CommonJS module"
    };
    let exports = s.shape.exports.join(" and ");
    let driven = if s.shape.exports.len() > 1 {
        format!("; the sandbox drives {}", s.entry_point)
    } else {
        String::new()
    };
    let mut out = format!("{format} exporting {exports}{driven}");
    if !s.shape.other_exports.is_empty() {
        out.push_str(&format!(
            " (also exports {}, ignored)",
            s.shape.other_exports.join(", ")
        ));
    }
    out
}

/// `12345` → `12,345`.
pub fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
