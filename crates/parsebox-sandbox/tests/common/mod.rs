//! What the sandbox's test files share.

/// Runs `body` on a thread with `stack_bytes` of stack and returns when it ends, a panic in it
/// failing the test: boa's parser and VM recurse deeply in unoptimised builds, deeper than the
/// 2 MiB a test thread has by default for some sources.
pub fn on_stack(stack_bytes: usize, body: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(stack_bytes)
        .spawn(body)
        .expect("a test thread starts")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e));
}

/// Node's answers for `parser` (an ES-module `ui-parser.js` source) on `lines`, through the
/// corpus runner `tests/corpus/node-reference.mjs` with `TZ=UTC` (the differential tests'
/// mechanism): each line's `JSON.parse(JSON.stringify(ret ?? null))`, or `None` for a line
/// that threw. `None` when `node` is not installed (the caller skips with a message); a
/// runner that fails panics.
#[allow(dead_code)]
pub fn node_answers(parser: &str, lines: &[String]) -> Option<Vec<Option<serde_json::Value>>> {
    node_answers_inner(parser, lines).unwrap_or_else(|e| panic!("{e}"))
}

fn node_answers_inner(
    parser: &str,
    lines: &[String],
) -> Result<Option<Vec<Option<serde_json::Value>>>, String> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static RUN: AtomicUsize = AtomicUsize::new(0);
    if std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_err()
    {
        return Ok(None);
    }
    let dir = std::env::temp_dir().join(format!(
        "parsebox-sandbox-node-{}-{}",
        std::process::id(),
        RUN.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let (parser_path, log_path) = (dir.join("ui-parser.mjs"), dir.join("sample.log"));
    std::fs::write(&parser_path, parser).map_err(|e| e.to_string())?;
    std::fs::write(&log_path, lines.join("\n")).map_err(|e| e.to_string())?;
    let runner = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus/node-reference.mjs");
    let out = std::process::Command::new("node")
        .env("TZ", "UTC")
        .arg(runner)
        .arg(&parser_path)
        .arg(&log_path)
        .args(["--format", "esm"])
        .output()
        .map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&dir);
    if !out.status.success() {
        return Err(format!(
            "node-reference failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let doc: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("node-reference output: {e}"))?;
    let answers: Vec<Option<serde_json::Value>> = doc["lines"]
        .as_array()
        .map(|ls| ls.iter().map(|l| l.get("result").cloned()).collect())
        .unwrap_or_default();
    if answers.len() != lines.len() {
        return Err(format!(
            "node-reference answered {} of {} lines (lines must be trimmed and not empty)",
            answers.len(),
            lines.len()
        ));
    }
    Ok(Some(answers))
}

/// The sandbox's answers for `parser` on `lines`, in one run, as [`node_answers`] gives Node's:
/// the converted return value before validation, or `None` for a line that failed.
#[allow(dead_code)]
pub fn sandbox_answers(parser: &str, lines: &[String]) -> Vec<Result<serde_json::Value, String>> {
    let module =
        parsebox_sandbox::ParserModule::load(parser, parsebox_sandbox::SandboxOptions::default())
            .expect("the parser loads");
    let mut run = module.new_run().expect("a run starts");
    lines
        .iter()
        .map(|l| {
            run.parse_line_raw(l, "2026-01-01T00:00:00.000Z")
                .map_err(|f| f.to_string())
        })
        .collect()
}

/// A small deterministic generator for the differential tests' inputs (xorshift64*).
#[allow(dead_code)]
pub struct Rng(pub u64);

#[allow(dead_code)]
impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// One of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        let n = u64::try_from(items.len()).unwrap_or(1);
        &items[usize::try_from(self.below(n)).unwrap_or(0)]
    }
}
