//! A realm made ahead of its parser ([`BlankRealm`]) behaves as one made at load time: the
//! same entries, the options of the parser loaded into it, and it is only used when it suits.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use parsebox_sandbox::{BlankRealm, ParserModule, SandboxOptions};

const TS: &str = "2026-01-01T00:00:00.000Z";

/// Module state, `Date`, `Math.random`, a regex, JSON and the bounded built-ins.
const PARSER: &str = "const seen = [];\n\
    export function createStdoutParser() {\n\
      let n = 0;\n\
      return { parseLine(line, ts) {\n\
        seen.push(line);\n\
        const m = /^(\\w+):\\s*(.*)$/.exec(line);\n\
        const v = JSON.parse('{\"a\":[1,2,3]}');\n\
        return [{ kind: 'stdout', ts, text: [++n, seen.length, Date.now(), Math.random(), m && m[1], v.a.join('+'), 'ab'.repeat(2)].join('|') }];\n\
      } };\n\
    }";

fn texts(module: &ParserModule) -> Vec<String> {
    let mut run = module.new_run().unwrap();
    ["tool: ls", "plain line", "tool: cat"]
        .iter()
        .map(|l| {
            let entries = run.parse_line(l, TS).unwrap();
            serde_json::to_string(&entries.entries).unwrap()
        })
        .collect()
}

#[test]
fn a_parser_in_a_blank_realm_answers_as_one_loaded_fresh() {
    let opts = SandboxOptions::default();
    let fresh = ParserModule::load(PARSER, opts.clone()).unwrap();
    let mut blank = Some(BlankRealm::new(&opts).unwrap());
    let ahead = ParserModule::load_with(PARSER, opts, &mut blank).unwrap();
    assert!(blank.is_none(), "the blank realm was used");
    assert_eq!(texts(&ahead), texts(&fresh));
}

#[test]
fn a_blank_realm_takes_the_regex_options_of_the_parser_loaded_into_it() {
    let src = "export function parseStdoutLine(line, ts) {\n\
          let text;\n\
          try { new RegExp('^(a+)+$'); text = 'built'; } catch (e) { text = 'refused'; }\n\
          return [{ kind: 'stdout', ts, text }];\n\
        }";
    let text = |screen_at_setup: bool, screen_at_load: bool| {
        let setup = SandboxOptions {
            screen_regexes: screen_at_setup,
            ..SandboxOptions::default()
        };
        let mut blank = Some(BlankRealm::new(&setup).unwrap());
        let opts = SandboxOptions {
            screen_regexes: screen_at_load,
            ..SandboxOptions::default()
        };
        let module = ParserModule::load_with(src, opts, &mut blank).unwrap();
        assert!(blank.is_none());
        let entries = module.new_run().unwrap().parse_line("x", TS).unwrap();
        entries.entries[0].text().unwrap_or_default().to_owned()
    };
    assert_eq!(text(true, false), "built");
    assert_eq!(text(false, true), "refused");
}

#[test]
fn a_blank_realm_with_other_baked_in_caps_is_left_unused() {
    let other = SandboxOptions {
        max_result_depth: 8,
        ..SandboxOptions::default()
    };
    let mut blank = Some(BlankRealm::new(&other).unwrap());
    assert!(!blank.as_ref().unwrap().suits(&SandboxOptions::default()));
    let module = ParserModule::load_with(PARSER, SandboxOptions::default(), &mut blank).unwrap();
    assert!(blank.is_some(), "a realm with other caps must not be used");
    assert_eq!(texts(&module).len(), 3);
}

#[test]
fn a_source_refused_before_its_trial_run_leaves_the_blank_realm() {
    let mut blank = Some(BlankRealm::new(&SandboxOptions::default()).unwrap());
    let e = ParserModule::load_with(
        "import x from 'y';\nexport function parseStdoutLine() {}",
        SandboxOptions::default(),
        &mut blank,
    )
    .unwrap_err();
    assert_eq!(e.code, "imports", "{e}");
    assert!(blank.is_some());
    // A trial run that throws consumes it: the realm ran guest code.
    let e = ParserModule::load_with(
        "throw new Error('boom');\nexport function parseStdoutLine() {}",
        SandboxOptions::default(),
        &mut blank,
    )
    .unwrap_err();
    assert_eq!(e.code, "init_threw", "{e}");
    assert!(blank.is_none());
}
