// Generated from the clap definition of the `parsebox` command (crates/parsebox-cli/src/cli.rs)
// by crates/parsebox-cli/src/npm_command_line.rs: do not edit. Regenerate with
// `PARSEBOX_UPDATE_COMMAND_LINE=1 cargo test -p parsebox-cli command_line`.

/** The `parsebox` command line: `""` is the command itself, then each subcommand by name. */
export const COMMAND_LINE = {
  "": {
    "name": "parsebox",
    "usageName": null,
    "version": "parsebox 0.1.0",
    "subcommandRequired": true,
    "subcommands": [
      "check",
      "parse",
      "help"
    ],
    "args": [
      {
        "id": "help",
        "long": "help",
        "short": "h",
        "action": "help",
        "positional": false,
        "required": false,
        "valueName": null,
        "value": null,
        "possible": null,
        "default": null
      },
      {
        "id": "version",
        "long": "version",
        "short": "V",
        "action": "version",
        "positional": false,
        "required": false,
        "valueName": null,
        "value": null,
        "possible": null,
        "default": null
      }
    ],
    "groups": [
      {
        "id": "Cli",
        "args": []
      }
    ],
    "help": {
      "short": "Check a Paperclip `ui-parser.js` before you publish it, and run it over a log, in the same sandbox the Paperclip UI uses\n\nUsage: parsebox <COMMAND>\n\nCommands:\n  check  Conformance report: module shape, imports, size, package.json contract, determinism, robustness on a sample log and on built-in awkward lines, validity of every entry\n  parse  Parse a log with the parser and print the transcript (coloured, or JSON lines), or its render-ready timeline (JSON lines)\n  help   Print this message or the help of the given subcommand(s)\n\nOptions:\n  -h, --help     Print help (see more with '--help')\n  -V, --version  Print version\n",
      "long": "Check a Paperclip `ui-parser.js` before you publish it, and run it over a log, in the same sandbox the Paperclip UI uses.\n\nExit codes: 0 success; 1 a check failed or the parser did not load; 2 bad usage or an unreadable input file; 70 an internal error (a bug in parsebox).\n\nUsage: parsebox <COMMAND>\n\nCommands:\n  check  Conformance report: module shape, imports, size, package.json contract, determinism, robustness on a sample log and on built-in awkward lines, validity of every entry\n  parse  Parse a log with the parser and print the transcript (coloured, or JSON lines), or its render-ready timeline (JSON lines)\n  help   Print this message or the help of the given subcommand(s)\n\nOptions:\n  -h, --help\n          Print help (see a summary with '-h')\n\n  -V, --version\n          Print version\n"
    }
  },
  "check": {
    "name": "check",
    "usageName": "parsebox check",
    "version": "parsebox-check 0.1.0",
    "subcommandRequired": false,
    "subcommands": [],
    "args": [
      {
        "id": "parser",
        "long": null,
        "short": null,
        "action": "set",
        "positional": true,
        "required": true,
        "valueName": "PARSER",
        "value": "path",
        "possible": null,
        "default": null
      },
      {
        "id": "package",
        "long": "package",
        "short": null,
        "action": "set",
        "positional": false,
        "required": false,
        "valueName": "PACKAGE_JSON",
        "value": "path",
        "possible": null,
        "default": null
      },
      {
        "id": "log",
        "long": "log",
        "short": null,
        "action": "set",
        "positional": false,
        "required": false,
        "valueName": "LOG",
        "value": "path",
        "possible": null,
        "default": null
      },
      {
        "id": "json",
        "long": "json",
        "short": null,
        "action": "flag",
        "positional": false,
        "required": false,
        "valueName": "JSON",
        "value": null,
        "possible": null,
        "default": "false"
      },
      {
        "id": "strict",
        "long": "strict",
        "short": null,
        "action": "flag",
        "positional": false,
        "required": false,
        "valueName": "STRICT",
        "value": null,
        "possible": null,
        "default": "false"
      },
      {
        "id": "max_examples",
        "long": "max-examples",
        "short": null,
        "action": "set",
        "positional": false,
        "required": false,
        "valueName": "N",
        "value": "unsigned",
        "possible": null,
        "default": "5"
      },
      {
        "id": "hang_timeout_ms",
        "long": "hang-timeout-ms",
        "short": null,
        "action": "set",
        "positional": false,
        "required": false,
        "valueName": "MS",
        "value": "unsigned-from-1",
        "possible": null,
        "default": "10000"
      },
      {
        "id": "line_budget_ms",
        "long": "line-budget-ms",
        "short": null,
        "action": "set",
        "positional": false,
        "required": false,
        "valueName": "MS",
        "value": "f64",
        "possible": null,
        "default": null
      },
      {
        "id": "init_budget_ms",
        "long": "init-budget-ms",
        "short": null,
        "action": "set",
        "positional": false,
        "required": false,
        "valueName": "MS",
        "value": "f64",
        "possible": null,
        "default": null
      },
      {
        "id": "max_source_bytes",
        "long": "max-source-bytes",
        "short": null,
        "action": "set",
        "positional": false,
        "required": false,
        "valueName": "BYTES",
        "value": "unsigned",
        "possible": null,
        "default": null
      },
      {
        "id": "max_line_bytes",
        "long": "max-line-bytes",
        "short": null,
        "action": "set",
        "positional": false,
        "required": false,
        "valueName": "BYTES",
        "value": "unsigned",
        "possible": null,
        "default": null
      },
      {
        "id": "color",
        "long": "color",
        "short": null,
        "action": "set",
        "positional": false,
        "required": false,
        "valueName": "WHEN",
        "value": "enum",
        "possible": [
          "auto",
          "always",
          "never"
        ],
        "default": "auto"
      },
      {
        "id": "help",
        "long": "help",
        "short": "h",
        "action": "help",
        "positional": false,
        "required": false,
        "valueName": null,
        "value": null,
        "possible": null,
        "default": null
      },
      {
        "id": "version",
        "long": "version",
        "short": "V",
        "action": "version",
        "positional": false,
        "required": false,
        "valueName": null,
        "value": null,
        "possible": null,
        "default": null
      }
    ],
    "groups": [
      {
        "id": "CheckArgs",
        "args": []
      },
      {
        "id": "SharedArgs",
        "args": []
      },
      {
        "id": "SandboxArgs",
        "args": [
          "line_budget_ms",
          "init_budget_ms",
          "max_source_bytes",
          "max_line_bytes"
        ]
      },
      {
        "id": "ColorArgs",
        "args": [
          "color"
        ]
      }
    ],
    "help": {
      "short": "Conformance report: module shape, imports, size, package.json contract, determinism, robustness on a sample log and on built-in awkward lines, validity of every entry\n\nUsage: parsebox check [OPTIONS] <PARSER>\n\nArguments:\n  <PARSER>  The parser file (`ui-parser.js`)\n\nOptions:\n      --package <PACKAGE_JSON>    The adapter's package.json: checks `paperclip.adapterUiParser` and that `exports[\"./ui-parser\"]` points at the parser file\n      --log <LOG>                 A sample of the agent's stdout (one event per line) to run the parser over\n      --json                      Print the report as one JSON document instead of text\n      --strict                    Treat warnings as failures (exit code 1)\n      --max-examples <N>          How many invalid entries, failing lines or differences to show per check [default: 5]\n      --hang-timeout-ms <MS>      Give up a parser call that has not returned after this many milliseconds (one native operation the sandbox cannot interrupt). `check` reports it and exits 1; `parse` shows the line's generic entry, says so on stderr, and starts the parser again for the lines after it [default: 10000]\n      --line-budget-ms <MS>       Budget of one parser call, in reference milliseconds: work the engine counts, not the clock, so a line gets the same outcome on any machine (the UI's default: 50)\n      --init-budget-ms <MS>       Budget of module evaluation plus `createStdoutParser()`, in milliseconds (default 200)\n      --max-source-bytes <BYTES>  Largest accepted parser source, in bytes (default 51200: 50 KB)\n      --max-line-bytes <BYTES>    Longest line handed to the parser, in bytes (the UI's default: 4194304, 4 MiB). A longer line shows the generic entry instead; `parse` keeps at most this many bytes of it (an endless line costs no more memory) and says so on stderr\n      --color <WHEN>              When to colour the output. `auto`: when stdout is a terminal and NO_COLOR is not set [default: auto] [possible values: auto, always, never]\n  -h, --help                      Print help (see more with '--help')\n  -V, --version                   Print version\n",
      "long": "Conformance report: module shape, imports, size, package.json contract, determinism, robustness on a sample log and on built-in awkward lines, validity of every entry\n\nUsage: parsebox check [OPTIONS] <PARSER>\n\nArguments:\n  <PARSER>\n          The parser file (`ui-parser.js`)\n\nOptions:\n      --package <PACKAGE_JSON>\n          The adapter's package.json: checks `paperclip.adapterUiParser` and that `exports[\"./ui-parser\"]` points at the parser file\n\n      --log <LOG>\n          A sample of the agent's stdout (one event per line) to run the parser over\n\n      --json\n          Print the report as one JSON document instead of text\n\n      --strict\n          Treat warnings as failures (exit code 1)\n\n      --max-examples <N>\n          How many invalid entries, failing lines or differences to show per check\n          \n          [default: 5]\n\n      --hang-timeout-ms <MS>\n          Give up a parser call that has not returned after this many milliseconds (one native operation the sandbox cannot interrupt). `check` reports it and exits 1; `parse` shows the line's generic entry, says so on stderr, and starts the parser again for the lines after it\n          \n          [default: 10000]\n\n      --line-budget-ms <MS>\n          Budget of one parser call, in reference milliseconds: work the engine counts, not the clock, so a line gets the same outcome on any machine (the UI's default: 50)\n\n      --init-budget-ms <MS>\n          Budget of module evaluation plus `createStdoutParser()`, in milliseconds (default 200)\n\n      --max-source-bytes <BYTES>\n          Largest accepted parser source, in bytes (default 51200: 50 KB)\n\n      --max-line-bytes <BYTES>\n          Longest line handed to the parser, in bytes (the UI's default: 4194304, 4 MiB). A longer line shows the generic entry instead; `parse` keeps at most this many bytes of it (an endless line costs no more memory) and says so on stderr\n\n      --color <WHEN>\n          When to colour the output. `auto`: when stdout is a terminal and NO_COLOR is not set\n\n          Possible values:\n          - auto:   Colour when stdout is a terminal and NO_COLOR is unset\n          - always: Always colour\n          - never:  Never colour\n          \n          [default: auto]\n\n  -h, --help\n          Print help (see a summary with '-h')\n\n  -V, --version\n          Print version\n"
    }
  },
  "parse": {
    "name": "parse",
    "usageName": "parsebox parse",
    "version": "parsebox-parse 0.1.0",
    "subcommandRequired": false,
    "subcommands": [],
    "args": [
      {
        "id": "parser",
        "long": "parser",
        "short": null,
        "action": "set",
        "positional": false,
        "required": true,
        "valueName": "UI_PARSER_JS",
        "value": "path",
        "possible": null,
        "default": null
      },
      {
        "id": "log",
        "long": null,
        "short": null,
        "action": "set",
        "positional": true,
        "required": false,
        "valueName": "LOG",
        "value": "path",
        "possible": null,
        "default": null
      },
      {
        "id": "format",
        "long": "format",
        "short": null,
        "action": "set",
        "positional": false,
        "required": false,
        "valueName": "FORMAT",
        "value": "enum",
        "possible": [
          "pretty",
          "jsonl",
          "timeline"
        ],
        "default": "pretty"
      },
      {
        "id": "ndjson",
        "long": "ndjson",
        "short": null,
        "action": "flag",
        "positional": false,
        "required": false,
        "valueName": "NDJSON",
        "value": null,
        "possible": null,
        "default": "false"
      },
      {
        "id": "redact_home_paths",
        "long": "redact-home-paths",
        "short": null,
        "action": "flag",
        "positional": false,
        "required": false,
        "valueName": "REDACT_HOME_PATHS",
        "value": null,
        "possible": null,
        "default": "false"
      },
      {
        "id": "quiet",
        "long": "quiet",
        "short": "q",
        "action": "flag",
        "positional": false,
        "required": false,
        "valueName": "QUIET",
        "value": null,
        "possible": null,
        "default": "false"
      },
      {
        "id": "hang_timeout_ms",
        "long": "hang-timeout-ms",
        "short": null,
        "action": "set",
        "positional": false,
        "required": false,
        "valueName": "MS",
        "value": "unsigned-from-1",
        "possible": null,
        "default": "10000"
      },
      {
        "id": "line_budget_ms",
        "long": "line-budget-ms",
        "short": null,
        "action": "set",
        "positional": false,
        "required": false,
        "valueName": "MS",
        "value": "f64",
        "possible": null,
        "default": null
      },
      {
        "id": "init_budget_ms",
        "long": "init-budget-ms",
        "short": null,
        "action": "set",
        "positional": false,
        "required": false,
        "valueName": "MS",
        "value": "f64",
        "possible": null,
        "default": null
      },
      {
        "id": "max_source_bytes",
        "long": "max-source-bytes",
        "short": null,
        "action": "set",
        "positional": false,
        "required": false,
        "valueName": "BYTES",
        "value": "unsigned",
        "possible": null,
        "default": null
      },
      {
        "id": "max_line_bytes",
        "long": "max-line-bytes",
        "short": null,
        "action": "set",
        "positional": false,
        "required": false,
        "valueName": "BYTES",
        "value": "unsigned",
        "possible": null,
        "default": null
      },
      {
        "id": "color",
        "long": "color",
        "short": null,
        "action": "set",
        "positional": false,
        "required": false,
        "valueName": "WHEN",
        "value": "enum",
        "possible": [
          "auto",
          "always",
          "never"
        ],
        "default": "auto"
      },
      {
        "id": "help",
        "long": "help",
        "short": "h",
        "action": "help",
        "positional": false,
        "required": false,
        "valueName": null,
        "value": null,
        "possible": null,
        "default": null
      },
      {
        "id": "version",
        "long": "version",
        "short": "V",
        "action": "version",
        "positional": false,
        "required": false,
        "valueName": null,
        "value": null,
        "possible": null,
        "default": null
      }
    ],
    "groups": [
      {
        "id": "ParseArgs",
        "args": []
      },
      {
        "id": "SharedArgs",
        "args": []
      },
      {
        "id": "SandboxArgs",
        "args": [
          "line_budget_ms",
          "init_budget_ms",
          "max_source_bytes",
          "max_line_bytes"
        ]
      },
      {
        "id": "ColorArgs",
        "args": [
          "color"
        ]
      }
    ],
    "help": {
      "short": "Parse a log with the parser and print the transcript (coloured, or JSON lines), or its render-ready timeline (JSON lines)\n\nUsage: parsebox parse [OPTIONS] --parser <UI_PARSER_JS> [LOG]\n\nArguments:\n  [LOG]  The log to parse; `-` or nothing reads standard input\n\nOptions:\n      --parser <UI_PARSER_JS>     The parser file (`ui-parser.js`)\n      --format <FORMAT>           Output format [default: pretty] [possible values: pretty, jsonl, timeline]\n      --ndjson                    The input is a stored Paperclip run log: NDJSON rows `{ts, stream, chunk, seq?}`. Without it, every input line is one stdout line, with line i at 2026-01-01T00:00:00Z + i seconds\n      --redact-home-paths         Mask user names in home paths (`/Users/name` → `/Users/n***`)\n  -q, --quiet                     No progress bar and no summary on stderr\n      --hang-timeout-ms <MS>      Give up a parser call that has not returned after this many milliseconds (one native operation the sandbox cannot interrupt). `check` reports it and exits 1; `parse` shows the line's generic entry, says so on stderr, and starts the parser again for the lines after it [default: 10000]\n      --line-budget-ms <MS>       Budget of one parser call, in reference milliseconds: work the engine counts, not the clock, so a line gets the same outcome on any machine (the UI's default: 50)\n      --init-budget-ms <MS>       Budget of module evaluation plus `createStdoutParser()`, in milliseconds (default 200)\n      --max-source-bytes <BYTES>  Largest accepted parser source, in bytes (default 51200: 50 KB)\n      --max-line-bytes <BYTES>    Longest line handed to the parser, in bytes (the UI's default: 4194304, 4 MiB). A longer line shows the generic entry instead; `parse` keeps at most this many bytes of it (an endless line costs no more memory) and says so on stderr\n      --color <WHEN>              When to colour the output. `auto`: when stdout is a terminal and NO_COLOR is not set [default: auto] [possible values: auto, always, never]\n  -h, --help                      Print help (see more with '--help')\n  -V, --version                   Print version\n",
      "long": "Parse a log with the parser and print the transcript (coloured, or JSON lines), or its render-ready timeline (JSON lines)\n\nUsage: parsebox parse [OPTIONS] --parser <UI_PARSER_JS> [LOG]\n\nArguments:\n  [LOG]\n          The log to parse; `-` or nothing reads standard input\n\nOptions:\n      --parser <UI_PARSER_JS>\n          The parser file (`ui-parser.js`)\n\n      --format <FORMAT>\n          Output format\n\n          Possible values:\n          - pretty:   Coloured, human-readable, like Paperclip's `run --watch`\n          - jsonl:    One TranscriptEntry JSON object per line\n          - timeline: The render-ready timeline: one item JSON object per line (tool calls paired with their results and diff lines, statuses, timeline positions), printed once the log has ended\n          \n          [default: pretty]\n\n      --ndjson\n          The input is a stored Paperclip run log: NDJSON rows `{ts, stream, chunk, seq?}`. Without it, every input line is one stdout line, with line i at 2026-01-01T00:00:00Z + i seconds\n\n      --redact-home-paths\n          Mask user names in home paths (`/Users/name` → `/Users/n***`)\n\n  -q, --quiet\n          No progress bar and no summary on stderr\n\n      --hang-timeout-ms <MS>\n          Give up a parser call that has not returned after this many milliseconds (one native operation the sandbox cannot interrupt). `check` reports it and exits 1; `parse` shows the line's generic entry, says so on stderr, and starts the parser again for the lines after it\n          \n          [default: 10000]\n\n      --line-budget-ms <MS>\n          Budget of one parser call, in reference milliseconds: work the engine counts, not the clock, so a line gets the same outcome on any machine (the UI's default: 50)\n\n      --init-budget-ms <MS>\n          Budget of module evaluation plus `createStdoutParser()`, in milliseconds (default 200)\n\n      --max-source-bytes <BYTES>\n          Largest accepted parser source, in bytes (default 51200: 50 KB)\n\n      --max-line-bytes <BYTES>\n          Longest line handed to the parser, in bytes (the UI's default: 4194304, 4 MiB). A longer line shows the generic entry instead; `parse` keeps at most this many bytes of it (an endless line costs no more memory) and says so on stderr\n\n      --color <WHEN>\n          When to colour the output. `auto`: when stdout is a terminal and NO_COLOR is not set\n\n          Possible values:\n          - auto:   Colour when stdout is a terminal and NO_COLOR is unset\n          - always: Always colour\n          - never:  Never colour\n          \n          [default: auto]\n\n  -h, --help\n          Print help (see a summary with '-h')\n\n  -V, --version\n          Print version\n"
    }
  },
  "help": {
    "name": "help",
    "usageName": "parsebox help",
    "version": "parsebox-help",
    "subcommandRequired": false,
    "subcommands": [
      "check",
      "parse",
      "help"
    ],
    "args": [],
    "groups": [],
    "help": {
      "short": "Print this message or the help of the given subcommand(s)\n\nUsage: parsebox help [COMMAND]...\n\nArguments:\n  [COMMAND]...  Print help for the subcommand(s)\n",
      "long": "Print this message or the help of the given subcommand(s)\n\nUsage: parsebox help [COMMAND]...\n\nArguments:\n  [COMMAND]...  Print help for the subcommand(s)\n"
    }
  }
};
