//! The tool-name table: the names real agents (and the corpus parsers) emit, by kind.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, missing_docs)]

use parsebox_timeline::{tool_kind, ToolKind};

/// (kind, names): Claude Code, Codex, Gemini CLI (API and display names), opencode, hermes,
/// Cursor, Droid, Kimi, ACP, goose, OpenHands, pi, qwen — as they appear in
/// `tests/corpus/compat/*` and the agents' docs.
const TABLE: &[(ToolKind, &[&str])] = &[
    (
        ToolKind::Read,
        &[
            "Read",
            "NotebookRead",
            "read_file",
            "view_image",
            "read_many_files",
            "ReadFile",
            "ReadManyFiles",
            "read",
        ],
    ),
    (
        ToolKind::Write,
        &["Write", "write_file", "WriteFile", "write", "Create"],
    ),
    (
        ToolKind::Edit,
        &[
            "Edit",
            "MultiEdit",
            "NotebookEdit",
            "apply_patch",
            "replace",
            "edit",
            "multiedit",
            "patch",
            "edit_file",
            "search_replace",
            "Delete",
            "delete_file",
            "StrReplaceFile",
            "text_editor",
            "str_replace_editor",
        ],
    ),
    (
        ToolKind::Shell,
        &[
            "Bash",
            "BashOutput",
            "KillShell",
            "shell",
            "exec_command",
            "local_shell",
            "write_stdin",
            "run_shell_command",
            "Shell",
            "bash",
            "terminal",
            "process",
            "execute_code",
            "run_terminal_cmd",
            "Execute",
            "Terminal",
            "execute_bash",
            "ipython",
            "exec",
        ],
    ),
    (
        ToolKind::Search,
        &[
            "Grep",
            "Glob",
            "LS",
            "grep_files",
            "list_dir",
            "search_file_content",
            "glob",
            "list_directory",
            "SearchText",
            "FindFiles",
            "ReadFolder",
            "grep",
            "list",
            "codesearch",
            "search_files",
            "List",
            "grep_search",
            "file_search",
            "codebase_search",
            "Search",
            "Find",
        ],
    ),
    (
        ToolKind::Fetch,
        &[
            "WebFetch",
            "WebSearch",
            "web_search",
            "web_fetch",
            "google_web_search",
            "GoogleSearch",
            "webfetch",
            "websearch",
            "web_extract",
            "SearchWeb",
            "FetchURL",
            "FetchUrl",
            "Fetch",
            "fetch",
            "browse",
        ],
    ),
    (
        ToolKind::Think,
        &[
            "TodoWrite",
            "ExitPlanMode",
            "update_plan",
            "write_todos",
            "todowrite",
            "todoread",
            "Todos",
            "todo_write",
            "SetTodoList",
            "todo",
            "think",
        ],
    ),
    (
        ToolKind::Other,
        &[
            "Task",
            "task",
            "save_memory",
            "memory",
            "Memory",
            "mcp__linear__update_issue",
            "mcp_linear_update_issue",
            "paperclip.update_issue",
            "github.create_pr",
            "vault_read",
            "wait",
            "unknown",
            "",
            "   ",
            "ünïcödé",
        ],
    ),
];

#[test]
fn every_known_name_has_its_kind() {
    for (kind, names) in TABLE {
        for name in *names {
            assert_eq!(tool_kind(name), *kind, "{name:?}");
        }
    }
}

#[test]
fn names_match_without_regard_to_case_or_separators() {
    for name in [
        "READ_FILE",
        "read-file",
        "Read File",
        "readFile",
        "read.file",
    ] {
        assert_eq!(tool_kind(name), ToolKind::Read, "{name:?}");
    }
    assert_eq!(tool_kind("RUN_SHELL_COMMAND"), ToolKind::Shell);
}

#[test]
fn kinds_serialise_as_lowercase_words() {
    let words: Vec<String> = TABLE
        .iter()
        .map(|(k, _)| {
            serde_json::to_value(k)
                .unwrap()
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(
        words,
        ["read", "write", "edit", "shell", "search", "fetch", "think", "other"]
    );
}
