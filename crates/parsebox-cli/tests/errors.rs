//! Error paths: missing and unreadable files, bad flags, parsers that do not load. Each gives a
//! one-line message naming the problem and a documented exit code, never a panic.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

mod common;

use common::{check, parsebox, parsebox_with_stdin};

const GOOD: &str = "tests/fixtures/good/ui-parser.js";

#[test]
fn missing_parser_file() {
    for args in [
        vec!["check", "no/such/ui-parser.js"],
        vec![
            "parse",
            "--parser",
            "no/such/ui-parser.js",
            "tests/fixtures/attack.log",
        ],
    ] {
        let run = parsebox(&args);
        assert_eq!(run.code, 2, "{args:?}");
        assert_eq!(
            run.stderr,
            "parsebox: error: cannot read no/such/ui-parser.js: no such file\n"
        );
        assert!(run.stdout.is_empty());
    }
}

#[test]
fn missing_log_and_package() {
    let run = parsebox(&["parse", "--parser", GOOD, "missing.log"]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "parsebox: error: cannot read missing.log: no such file\n"
    );

    let run = parsebox(&["check", GOOD, "--log", "missing.log"]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "parsebox: error: cannot read missing.log: no such file\n"
    );

    let run = parsebox(&["check", GOOD, "--package", "nope/package.json"]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "parsebox: error: cannot read nope/package.json: no such file\n"
    );
}

#[test]
fn a_directory_is_not_readable_input() {
    let run = parsebox(&["parse", "--parser", GOOD, "tests/fixtures"]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "parsebox: error: cannot read tests/fixtures: is a directory, not a file\n"
    );

    let run = parsebox(&["check", "tests/fixtures"]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "parsebox: error: cannot read tests/fixtures: is a directory, not a file\n"
    );
}

#[cfg(unix)]
#[test]
fn a_file_without_read_permission() {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("parsebox-cli-perm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("secret.log");
    std::fs::write(&path, "a\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read(&path).is_ok() {
        // Running as root: permissions do not apply, nothing to test.
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }
    let p = path.to_string_lossy().into_owned();
    let run = parsebox(&["parse", "--parser", GOOD, &p]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        format!("parsebox: error: cannot read {p}: permission denied\n")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_flags_are_usage_errors() {
    let run = parsebox(&["parse", "--parser", GOOD, "--format", "yaml"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("invalid value 'yaml' for '--format <FORMAT>'"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("[possible values: pretty, jsonl, timeline]"),
        "{}",
        run.stderr
    );

    let run = parsebox(&["check", GOOD, "--frobnicate"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("unexpected argument '--frobnicate'"),
        "{}",
        run.stderr
    );

    let run = parsebox(&["parse", "tests/fixtures/attack.log"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("--parser <UI_PARSER_JS>"),
        "{}",
        run.stderr
    );

    let run = parsebox(&["check"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("<PARSER>"), "{}", run.stderr);

    let run = parsebox(&["lint", GOOD]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("unrecognized subcommand 'lint'"),
        "{}",
        run.stderr
    );

    let run = parsebox(&["check", GOOD, "--line-budget-ms", "soon"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("invalid value 'soon' for '--line-budget-ms <MS>'"),
        "{}",
        run.stderr
    );

    let run = parsebox(&["check", GOOD, "--line-budget-ms", "0"]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "parsebox: error: --line-budget-ms must be a number of milliseconds above 0 and at most 3600000 (one hour), got 0\n"
    );
    // The value as given is quoted as JS writes numbers, not as 309 digits.
    let run = parsebox(&["check", GOOD, "--line-budget-ms", "1e308"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.ends_with(", got 1e308\n"), "{}", run.stderr);
    // A hang timeout of 0 would give up every call that does not answer at once.
    let run = parsebox(&["parse", "--parser", GOOD, "--hang-timeout-ms", "0"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--hang-timeout-ms"), "{}", run.stderr);

    let run = parsebox(&["parse", "--parser", GOOD, "--color", "sometimes"]);
    assert_eq!(run.code, 2);
}

#[test]
fn help_and_version_succeed() {
    let run = parsebox(&["--help"]);
    assert_eq!(run.code, 0);
    assert!(
        run.stdout.contains("check") && run.stdout.contains("parse"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("Exit codes: 0 success"),
        "{}",
        run.stdout
    );
    let run = parsebox(&["--version"]);
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stdout,
        format!("parsebox {}\n", env!("CARGO_PKG_VERSION"))
    );
    let run = parsebox(&["parse", "--help"]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.contains("--ndjson"));
}

#[test]
fn parse_refuses_a_parser_that_does_not_load() {
    let run = parsebox(&[
        "parse",
        "--parser",
        "tests/fixtures/hostile/syntax-error.js",
        "tests/fixtures/attack.log",
    ]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.is_empty());
    assert!(
        run.stderr.starts_with(
            "parsebox: error: tests/fixtures/hostile/syntax-error.js did not load: syntax_error: "
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("at 3:"),
        "the position in the source: {}",
        run.stderr
    );

    let run = parsebox(&[
        "parse",
        "--parser",
        "tests/fixtures/hostile/no-export.js",
        "tests/fixtures/attack.log",
    ]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("did not load: no_export: "),
        "{}",
        run.stderr
    );

    let run = parsebox(&[
        "parse",
        "--parser",
        "tests/fixtures/hostile/too-large.js",
        "--max-source-bytes",
        "100",
        "tests/fixtures/attack.log",
    ]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains("did not load: too_large: parser source is "),
        "{}",
        run.stderr
    );
}

#[test]
fn check_reports_load_failures_with_hints() {
    let run = parsebox(&["check", "tests/fixtures/hostile/syntax-error.js", "--json"]);
    assert_eq!(run.code, 1);
    let report = run.json();
    let load = check(&report, "load");
    assert_eq!(load["status"], "fail");
    assert!(
        load["summary"]
            .as_str()
            .unwrap()
            .starts_with("syntax_error: "),
        "{load}"
    );
    assert_eq!(report["module"], serde_json::Value::Null);

    let run = parsebox(&["check", "tests/fixtures/hostile/no-export.js", "--json"]);
    let report = run.json();
    let load = check(&report, "load");
    assert!(
        load["details"][0]
            .as_str()
            .unwrap()
            .contains("export createStdoutParser()"),
        "{load}"
    );

    // An oversized file fails the size check but still gets every other check.
    let run = parsebox(&[
        "check",
        "tests/fixtures/hostile/too-large.js",
        "--max-source-bytes",
        "100",
        "--json",
    ]);
    assert_eq!(run.code, 1);
    let report = run.json();
    assert_eq!(
        common::problems(&report),
        vec![("size".to_owned(), "fail".to_owned())]
    );
    assert_eq!(common::status(&report, "awkward_lines"), "pass");
}

#[test]
fn malformed_package_json_fails_the_contract_check() {
    let dir = std::env::temp_dir().join(format!("parsebox-cli-pkg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pkg = dir.join("package.json");
    std::fs::write(&pkg, "{ \"name\": ").unwrap();
    let p = pkg.to_string_lossy().into_owned();
    let run = parsebox(&["check", GOOD, "--package", &p, "--json"]);
    assert_eq!(run.code, 1);
    let report = run.json();
    let contract = check(&report, "contract_version");
    assert_eq!(contract["status"], "fail");
    assert!(
        contract["summary"]
            .as_str()
            .unwrap()
            .contains("is not valid JSON"),
        "{contract}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn invalid_utf8_input_is_decoded_not_refused() {
    let run = parsebox_with_stdin(
        &["parse", "--parser", GOOD, "-", "--format", "jsonl", "-q"],
        Some(b"ab\xFFcd\n"),
    );
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stdout,
        "{\"kind\":\"stdout\",\"ts\":\"2026-01-01T00:00:00.000Z\",\"text\":\"ab\u{FFFD}cd\"}\n"
    );
    assert!(run.stderr.is_empty(), "-q: {}", run.stderr);
}

#[test]
fn an_empty_log_is_a_warning() {
    let dir = std::env::temp_dir().join(format!("parsebox-cli-empty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("empty.log");
    std::fs::write(&log, "\n  \r\n").unwrap();
    let l = log.to_string_lossy().into_owned();
    let run = parsebox(&["check", GOOD, "--log", &l, "--json"]);
    assert_eq!(run.code, 0);
    let report = run.json();
    assert_eq!(common::status(&report, "sample_log"), "warn");
    assert_eq!(common::status(&report, "determinism"), "pass");

    let run = parsebox(&["parse", "--parser", GOOD, &l]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.is_empty());
    assert!(
        run.stderr.starts_with("parsebox: 0 lines → 0 entries"),
        "{}",
        run.stderr
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A file larger than its use can need, or a device that never ends, is refused before it is
/// read whole (it was read whole first: a 1.5 GB file took ~3 GB, `/dev/zero` grew without end).
#[test]
fn oversized_inputs_are_refused_before_they_are_read_whole() {
    let dir = std::env::temp_dir().join(format!("parsebox-oversized-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A sparse 2 GiB file: no disk is used, and reading it whole would take 2 GiB.
    let big = dir.join("big.js");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let big = big.to_string_lossy().into_owned();
    let cases: [(Vec<&str>, String); 5] = [
        (
            vec!["check", &big],
            format!("{big} is 2,147,483,648 bytes; a parser to check may be at most 819,200 bytes (Paperclip refuses one over 51,200)"),
        ),
        (
            vec!["parse", "--parser", "/dev/zero", "tests/fixtures/attack.log"],
            "/dev/zero has more than 819,200 bytes; a parser may be at most 819,200 bytes (Paperclip refuses one over 51,200)".into(),
        ),
        (
            vec!["check", GOOD, "--log", "/dev/zero"],
            "/dev/zero has more than 67,108,864 bytes; a sample log may be at most 67,108,864 bytes (`parsebox parse` reads a log of any length)".into(),
        ),
        (
            vec!["check", GOOD, "--package", "/dev/zero"],
            "/dev/zero has more than 16,777,216 bytes; a package.json may be at most 16,777,216 bytes".into(),
        ),
        (
            // Past the limit but within what is read: every other check still runs.
            vec!["check", "--max-source-bytes", "1000", GOOD],
            String::new(),
        ),
    ];
    for (args, message) in cases {
        let run = parsebox(&args);
        if message.is_empty() {
            assert_eq!(run.code, 1, "{args:?}: {}", run.stderr);
            assert!(
                run.stdout.contains("over the 1,000-byte limit"),
                "{}",
                run.stdout
            );
            continue;
        }
        assert_eq!(run.code, 2, "{args:?}");
        assert_eq!(
            run.stderr,
            format!("parsebox: error: {message}\n"),
            "{args:?}"
        );
        assert!(run.stdout.is_empty());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
