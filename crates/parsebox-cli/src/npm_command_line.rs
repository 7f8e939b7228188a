//! The npm command reads its arguments as this command's clap does (`js/cli/read-args.js`), from
//! a description of the command line rendered here from the clap definition (`cli.rs`): every
//! argument, how its value is read, its default, and the help texts as clap renders them. The
//! test fails when the committed `js/cli/command-line.js` differs from what clap says now;
//! `PARSEBOX_UPDATE_COMMAND_LINE=1 cargo test -p parsebox-cli command_line` rewrites it.
//! (Until issue 56 the npm command ran this crate's clap built for WASI for help, version and
//! usage errors: the package now carries the page's two modules and nothing else.)

use std::path::PathBuf;

use clap::{Arg, ArgAction, Command, CommandFactory};
use serde_json::{json, Value};

use crate::cli::Cli;

const HEADER: &str = "\
// Generated from the clap definition of the `parsebox` command (crates/parsebox-cli/src/cli.rs)
// by crates/parsebox-cli/src/npm_command_line.rs: do not edit. Regenerate with
// `PARSEBOX_UPDATE_COMMAND_LINE=1 cargo test -p parsebox-cli command_line`.
";

/// How clap reads the argument's value, found by asking clap to read sample values: `path` (any
/// non-empty text), `f64`, `unsigned` (a whole number from 0), `unsigned-from-1`, `enum` (one of
/// `possible`); `None` for a flag.
fn value_kind(cmd: &Command, arg: &Arg) -> Option<&'static str> {
    if !matches!(arg.get_action(), ArgAction::Set) {
        return None;
    }
    if !arg.get_possible_values().is_empty() {
        return Some("enum");
    }
    let reads = |text: &str| {
        let mut argv = vec![cmd.get_name().to_owned()];
        for other in cmd
            .get_arguments()
            .filter(|a| a.is_required_set() && a.get_id() != arg.get_id())
        {
            if let Some(long) = other.get_long() {
                argv.push(format!("--{long}"));
            }
            argv.push("x".to_owned());
        }
        match arg.get_long() {
            Some(long) => argv.push(format!("--{long}={text}")),
            None => argv.push(text.to_owned()),
        }
        cmd.clone().try_get_matches_from(argv).is_ok()
    };
    Some(if reads("x") {
        "path"
    } else if reads("1.5") {
        "f64"
    } else if reads("0") {
        "unsigned"
    } else if reads("1") {
        "unsigned-from-1"
    } else {
        panic!(
            "--{:?}: a value parser the npm command does not know",
            arg.get_long()
        )
    })
}

fn action(arg: &Arg) -> &'static str {
    match arg.get_action() {
        ArgAction::Set => "set",
        ArgAction::SetTrue => "flag",
        ArgAction::Help | ArgAction::HelpShort | ArgAction::HelpLong => "help",
        ArgAction::Version => "version",
        other => panic!("an argument action the npm command does not know: {other:?}"),
    }
}

fn describe_arg(cmd: &Command, arg: &Arg) -> Value {
    let strings = |v: Vec<String>| if v.is_empty() { Value::Null } else { json!(v) };
    json!({
        "id": arg.get_id().as_str(),
        "long": arg.get_long(),
        "short": arg.get_short().map(String::from),
        "action": action(arg),
        "positional": arg.is_positional(),
        "required": arg.is_required_set(),
        "valueName": arg.get_value_names().and_then(|n| n.first()).map(ToString::to_string),
        "value": value_kind(cmd, arg),
        "possible": strings(arg.get_possible_values().iter().map(|p| p.get_name().to_owned()).collect()),
        "default": arg.get_default_values().first().map(|d| d.to_string_lossy().into_owned()),
    })
}

/// What the command prints for `argv` (help or version, which clap gives as an error to print),
/// from the command as `main` makes it (a built one renders the help subcommand's help otherwise).
fn printed(argv: &[&str]) -> String {
    let said = Cli::command()
        .try_get_matches_from(std::iter::once("parsebox").chain(argv.iter().copied()))
        .expect_err("help and version are said, not taken");
    said.render().to_string()
}

/// One command's description; `path` is how it is named after `parsebox` (empty for the
/// command itself).
fn describe(cmd: &Command, path: &[&str]) -> Value {
    let args: Vec<Value> = cmd.get_arguments().map(|a| describe_arg(cmd, a)).collect();
    let subcommands: Vec<&str> = cmd.get_subcommands().map(Command::get_name).collect();
    let with = |flag: &'static str| [path, &[flag]].concat();
    // `help` takes no flags: `parsebox help help` is its help.
    let (short, long) = if path == ["help"] {
        let help = printed(&["help", "help"]);
        (help.clone(), help)
    } else {
        (printed(&with("-h")), printed(&with("--help")))
    };
    // clap makes a group of each flattened struct's arguments; a usage line may show one.
    let groups: Vec<Value> = cmd
        .get_groups()
        .map(|g| json!({ "id": g.get_id().as_str(), "args": g.get_args().map(|a| a.as_str()).collect::<Vec<_>>() }))
        .collect();
    json!({
        "name": cmd.get_name(),
        "usageName": cmd.get_bin_name(),
        "version": cmd.render_version().trim_end(),
        "subcommandRequired": cmd.is_subcommand_required_set(),
        "subcommands": subcommands,
        "args": args,
        "groups": groups,
        "help": { "short": short, "long": long },
    })
}

/// The module `js/cli/command-line.js` holds.
fn command_line_js() -> String {
    let mut cli = Cli::command();
    cli.build();
    let mut commands = serde_json::Map::new();
    commands.insert("".to_owned(), describe(&cli, &[]));
    for sub in cli.get_subcommands() {
        let name = sub.get_name();
        commands.insert(name.to_owned(), describe(sub, &[name]));
    }
    let text = serde_json::to_string_pretty(&Value::Object(commands)).expect("JSON of strings");
    format!(
        "{HEADER}\n/** The `parsebox` command line: `\"\"` is the command itself, then each subcommand by name. */\nexport const COMMAND_LINE = {text};\n"
    )
}

#[test]
fn the_npm_commands_command_line_is_clap_s() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../parsebox-wasm/js/cli/command-line.js");
    let now = command_line_js();
    if std::env::var_os("PARSEBOX_UPDATE_COMMAND_LINE").is_some() {
        std::fs::write(&path, &now).expect("write js/cli/command-line.js");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == now,
        "js/cli/command-line.js is not what clap says of the command line now: run \
         `PARSEBOX_UPDATE_COMMAND_LINE=1 cargo test -p parsebox-cli command_line`"
    );
}
