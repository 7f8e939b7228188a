//! Helpers shared by the CLI tests: run the built `parsebox` binary from this crate's directory
//! and look at its exit code and output.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

/// What one run of the binary gave.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// The stdout parsed as one JSON document (`check --json`).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.stdout))
    }

    /// Asserts that nothing went wrong inside parsebox itself.
    pub fn assert_no_panic(&self) {
        assert!(
            !self.stderr.contains("panicked"),
            "a panic reached the user:\n{}",
            self.stderr
        );
        assert!(
            !self.stderr.contains("internal error"),
            "an internal error:\n{}",
            self.stderr
        );
        assert_ne!(self.code, 101, "exit code 101 is Rust's panic code");
    }
}

/// A path inside the repository (the corpora live at its root).
pub fn repo(path: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path);
    p.to_string_lossy().into_owned()
}

/// `parsebox <args>` run from the crate directory (so `tests/fixtures/…` paths work), with
/// colour decided by flags only.
pub fn parsebox(args: &[&str]) -> Run {
    parsebox_with_stdin(args, None)
}

/// As [`parsebox`], with `stdin` as standard input.
pub fn parsebox_with_stdin(args: &[&str], stdin: Option<&[u8]>) -> Run {
    let mut cmd = assert_cmd::cargo::cargo_bin_cmd!("parsebox");
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("NO_COLOR")
        .args(args);
    if let Some(input) = stdin {
        cmd.write_stdin(input.to_vec());
    }
    let out = cmd.output().expect("run parsebox");
    let run = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    run.assert_no_panic();
    run
}

/// The status of check `id` in a `check --json` report.
pub fn status(report: &serde_json::Value, id: &str) -> String {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no check {id} in {report:#}"))["status"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The check `id` of a `check --json` report.
pub fn check<'a>(report: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap()
}

/// Every `(id, status)` of a report that is not `pass` or `skip`.
pub fn problems(report: &serde_json::Value) -> Vec<(String, String)> {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] != "pass" && c["status"] != "skip")
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_owned(),
                c["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}
