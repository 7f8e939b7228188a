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
