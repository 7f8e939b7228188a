//! The package.json half of the contract (the seed doc's "Contract: package.json"):
//! `paperclip.adapterUiParser` declares the contract version (major 1; missing is accepted for
//! now), and `exports["./ui-parser"]` is how Paperclip's plugin loader finds the file.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::native::report::{Check, Status};

/// Checks the contract version and the exports map of `package` (already parsed) against the
/// parser file at `parser`.
pub fn check_package(package_path: &Path, package: &Value, parser: &Path) -> Vec<Check> {
    vec![
        contract_version(package),
        exports_entry(package_path, package, parser),
    ]
}

fn contract_version(package: &Value) -> Check {
    let check = |status, summary: String| {
        Check::new("contract_version", "contract version", status, summary)
    };
    match package.get("paperclip").and_then(|p| p.get("adapterUiParser")) {
        None => check(
            Status::Warn,
            "package.json has no paperclip.adapterUiParser; Paperclip accepts that for now (grace \
             period), later versions may require it: add \"paperclip\": { \"adapterUiParser\": \"1.0.0\" }"
                .to_owned(),
        ),
        Some(Value::String(v)) => match major_version(v) {
            Some(1) => check(Status::Pass, format!("paperclip.adapterUiParser is {v:?} (this host supports 1.x)")),
            Some(m) => check(
                Status::Fail,
                format!("paperclip.adapterUiParser is {v:?}: Paperclip supports 1.x and falls back to the generic parser for {m}.x"),
            ),
            None => check(Status::Fail, format!("paperclip.adapterUiParser {v:?} is not a version; expected e.g. \"1.0.0\"")),
        },
        Some(other) => check(
            Status::Fail,
            format!("paperclip.adapterUiParser must be a string like \"1.0.0\", found {other}"),
        ),
    }
}

/// The major version of `"1.0.0"`, `"1.x"`, `"^1.2"`, `"v1"` (the registry's rule).
fn major_version(v: &str) -> Option<u64> {
    v.trim()
        .trim_start_matches(['^', '~', '=', 'v'])
        .split('.')
        .next()?
        .parse()
        .ok()
}

fn exports_entry(package_path: &Path, package: &Value, parser: &Path) -> Check {
    let check = |status, summary: String| {
        Check::new("exports_entry", "exports[\"./ui-parser\"]", status, summary)
    };
    let Some(target) = package.get("exports").and_then(|e| e.get("./ui-parser")) else {
        return check(
            Status::Fail,
            "package.json has no exports[\"./ui-parser\"]: Paperclip will not find the parser \
             (add \"exports\": { \"./ui-parser\": \"./dist/ui-parser.js\" })"
                .to_owned(),
        );
    };
    let mut targets = Vec::new();
    collect_targets(target, &mut targets);
    if targets.is_empty() {
        return check(
            Status::Fail,
            format!("exports[\"./ui-parser\"] has no file path: {target}"),
        );
    }
    let dir = package_path
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let dir = if dir.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        dir
    };
    let want = std::fs::canonicalize(parser).ok();
    let mut problems = Vec::new();
    let mut matched = None;
    for t in &targets {
        if !t.starts_with("./") {
            problems.push(format!(
                "{t:?} must start with \"./\" (a path inside the package)"
            ));
            continue;
        }
        match std::fs::canonicalize(dir.join(t)) {
            Ok(p) if Some(&p) == want.as_ref() => matched = Some(t.clone()),
            Ok(p) => problems.push(format!("{t:?} is {}, not the checked file", p.display())),
            Err(_) => problems.push(format!(
                "{t:?} does not exist (relative to {})",
                dir.display()
            )),
        }
    }
    match matched {
        Some(t) => {
            let mut c = check(
                Status::Pass,
                format!("exports[\"./ui-parser\"] is {t:?}, the checked file"),
            );
            c.details = problems;
            c
        }
        None => {
            let mut c = check(
                Status::Fail,
                format!(
                    "exports[\"./ui-parser\"] does not point at {}",
                    parser.display()
                ),
            );
            c.details = problems;
            c
        }
    }
}

/// The file paths of an exports target: a string, or the string leaves of a conditions object
/// (`{ "import": …, "require": …, "default": … }`), or an array of fallbacks.
fn collect_targets(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|v| collect_targets(v, out)),
        Value::Object(o) => o.values().for_each(|v| collect_targets(v, out)),
        _ => {}
    }
}

/// The package checks for `check --package`: `package` is the file given and its parsed JSON
/// (`None` without `--package`); `parser` the checked file.
pub fn package_checks(
    package: Option<(&Path, &Result<Value, serde_json::Error>)>,
    parser: &Path,
) -> Vec<Check> {
    let mut out = Vec::new();
    match package {
        None => {
            for (id, title) in [
                ("contract_version", "contract version"),
                ("exports_entry", "exports[\"./ui-parser\"]"),
            ] {
                out.push(Check::new(
                    id,
                    title,
                    Status::Skip,
                    "no --package given".into(),
                ));
            }
        }
        Some((path, Err(e))) => {
            out.push(Check::new(
                "contract_version",
                "contract version",
                Status::Fail,
                format!("{} is not valid JSON: {e}", path.display()),
            ));
            out.push(Check::new(
                "exports_entry",
                "exports[\"./ui-parser\"]",
                Status::Skip,
                "package.json unreadable".into(),
            ));
        }
        Some((path, Ok(pkg))) => out.extend(check_package(path, pkg, parser)),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn major_versions() {
        for (v, m) in [
            ("1.0.0", Some(1)),
            ("1.x", Some(1)),
            ("^1.2", Some(1)),
            ("v2", Some(2)),
            ("one", None),
            ("", None),
        ] {
            assert_eq!(major_version(v), m, "{v}");
        }
    }

    #[test]
    fn contract_version_rules() {
        let status = |pkg: Value| contract_version(&pkg).status;
        assert_eq!(
            status(serde_json::json!({"paperclip": {"adapterUiParser": "1.0.0"}})),
            Status::Pass
        );
        assert_eq!(
            status(serde_json::json!({"paperclip": {"adapterUiParser": "2.0.0"}})),
            Status::Fail
        );
        assert_eq!(
            status(serde_json::json!({"paperclip": {"adapterUiParser": 1}})),
            Status::Fail
        );
        assert_eq!(status(serde_json::json!({"name": "x"})), Status::Warn);
    }

    #[test]
    fn targets_of_conditional_exports() {
        let mut out = Vec::new();
        collect_targets(
            &serde_json::json!({"import": "./a.js", "default": ["./b.js", {"node": "./c.js"}]}),
            &mut out,
        );
        assert_eq!(out, ["./a.js", "./b.js", "./c.js"]);
    }
}
