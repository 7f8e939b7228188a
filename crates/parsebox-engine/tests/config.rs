//! The host's engine-side options reach the sandbox: [`sandbox_options`] lays each onto the
//! sandbox's defaults.
#![allow(clippy::unwrap_used, missing_docs)]

use parsebox_engine::sandbox_options;
use parsebox_host::HostOptions;
use parsebox_sandbox::ParserModule;
use parsebox_transcript::{EntryLimits, FailureCode};

#[test]
fn a_thrown_text_is_cut_in_the_engine_at_the_hosts_max_string_bytes() {
    // Issue 54: the engine cut what a parser throws at its own 1 MiB, whatever the host's
    // `maxStringBytes` said; the host cut it again, after up to 1 MiB had crossed to it.
    let host = HostOptions {
        entry_limits: EntryLimits {
            max_string_bytes: 1000,
            ..EntryLimits::default()
        },
        ..HostOptions::default()
    };
    let config = host.engine_config();
    assert_eq!(config.max_string_bytes, 1000);
    let options = sandbox_options(&config).unwrap();
    assert_eq!(options.entry_limits.max_string_bytes, 1000);
    let source = r#"export function parseStdoutLine(line) {
        if (line === "error") throw new Error("E".repeat(4 << 20));
        throw "é".repeat(4 << 20);
    }"#;
    let mut run = ParserModule::load(source, options)
        .unwrap()
        .new_run()
        .unwrap();
    for line in ["error", "string"] {
        let failure = run.parse_line_json(line, "t").unwrap_err();
        assert_eq!(failure.code, FailureCode::Threw);
        assert!(failure.message.len() <= 1000, "{}", failure.message.len());
        assert!(failure.error_text().len() <= 1000, "{line}");
        assert!(failure.error_text().len() > 900, "{line}: cut, not dropped");
    }
}
