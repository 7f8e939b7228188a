//! The table from tool names to [`ToolKind`]s, the one place that knows what the agents call
//! their tools.

use crate::item::ToolKind;

/// The [`ToolKind`] of a tool named `name`, as Claude Code, Codex, Gemini CLI, opencode, hermes,
/// Cursor and the other agents Paperclip adapters wrap name their tools.
///
/// Names match without regard to case or separators: `Read`, `read`, `read_file`, `ReadFile`
/// and `read-file` are all looked up as `readfile`. A name the table does not know is
/// [`ToolKind::Other`], never an error; so is the empty name. Prefixed names (MCP tools such
/// as `mcp__linear__update_issue`, `github.create_pr`) are `other`: their suffix is not guessed.
///
/// | kind | names (as the agents spell them) |
/// |---|---|
/// | `read` | Claude Code `Read`, `NotebookRead`; Codex `read_file`, `view_image`; Gemini CLI `read_file`, `read_many_files` (`ReadFile`, `ReadManyFiles`); opencode `read`; hermes `read_file`; Cursor `Read`, `read_file`; `view`, `cat` |
/// | `write` | Claude Code `Write`; Gemini CLI `write_file` (`WriteFile`); opencode `write`; hermes `write_file`; Droid `Create`; `create_file` |
/// | `edit` | Claude Code `Edit`, `MultiEdit`, `NotebookEdit`; Codex `apply_patch`; Gemini CLI `replace`; opencode `edit`, `multiedit`, `patch`; hermes `patch`; Cursor `Edit`, `edit_file`, `search_replace`, `Delete`, `delete_file`; Kimi `StrReplaceFile`; goose `text_editor`; OpenHands `str_replace_editor` |
/// | `shell` | Claude Code `Bash`, `BashOutput`, `KillShell`; Codex `shell`, `exec_command`, `local_shell`, `write_stdin`; Gemini CLI `run_shell_command` (`Shell`); opencode `bash`; hermes `terminal`, `process`, `execute_code`; Cursor `Shell`, `run_terminal_cmd`; Droid `Execute`; ACP `Terminal`; OpenHands `execute_bash`, `ipython`; `exec`, `run_command` |
/// | `search` | Claude Code `Grep`, `Glob`, `LS`; Codex `grep_files`, `list_dir`; Gemini CLI `search_file_content`, `glob`, `list_directory` (`SearchText`, `FindFiles`, `ReadFolder`); opencode `grep`, `glob`, `list`, `codesearch`; hermes `search_files`; Cursor `Grep`, `Glob`, `List`, `grep_search`, `file_search`, `codebase_search`; ACP `Search`; `find` |
/// | `fetch` | Claude Code `WebFetch`, `WebSearch`; Codex `web_search`; Gemini CLI `web_fetch`, `google_web_search` (`WebFetch`, `GoogleSearch`); opencode `webfetch`, `websearch`; hermes `web_search`, `web_extract`; Kimi `SearchWeb`, `FetchURL`; Droid `FetchUrl`; ACP `Fetch`; goose `fetch`; OpenHands `browse`; `web_search` |
/// | `think` | Claude Code `TodoWrite`, `ExitPlanMode`; Codex `update_plan`; Gemini CLI `write_todos`; opencode `todowrite`, `todoread`; Cursor `Todos`, `todo_write`; Kimi `SetTodoList`; hermes `todo`; `think`, `sequentialthinking`, `plan` |
/// | `other` | everything else: Claude Code `Task`, opencode `task`, Gemini CLI `save_memory`, hermes `memory`, MCP tools, unknown names |
///
/// Planning tools (todo lists, plans) are `think`, as in the Agent Client Protocol's kinds:
/// they show the agent's reasoning, not a change to the workspace. Web search is `fetch`, not
/// `search`: `search` is the workspace, `fetch` is the network. Listing a directory is `search`,
/// as Gemini CLI classes it.
///
/// ```
/// use parsebox_timeline::{tool_kind, ToolKind};
///
/// assert_eq!(tool_kind("Bash"), ToolKind::Shell);
/// assert_eq!(tool_kind("run_shell_command"), ToolKind::Shell);
/// assert_eq!(tool_kind("ReadFile"), ToolKind::Read);
/// assert_eq!(tool_kind("apply_patch"), ToolKind::Edit);
/// assert_eq!(tool_kind("mcp__linear__update_issue"), ToolKind::Other);
/// ```
pub fn tool_kind(name: &str) -> ToolKind {
    let mut buf = [0u8; 32];
    let owned: String;
    let key: &str = match ascii_key(name, &mut buf) {
        Some(key) => key,
        None => {
            owned = name
                .chars()
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_lowercase)
                .collect();
            &owned
        }
    };
    kind_of_key(key)
}

/// The lookup key of an ASCII `name` of at most 32 bytes (letters and digits, lowercased),
/// written into `buf`; `None` for any other name (the slow path handles it).
fn ascii_key<'b>(name: &str, buf: &'b mut [u8; 32]) -> Option<&'b str> {
    if !name.is_ascii() || name.len() > buf.len() {
        return None;
    }
    let mut len = 0;
    for b in name.bytes().filter(u8::is_ascii_alphanumeric) {
        *buf.get_mut(len)? = b.to_ascii_lowercase();
        len += 1;
    }
    std::str::from_utf8(buf.get(..len)?).ok()
}

/// The table itself, on normalised keys.
fn kind_of_key(key: &str) -> ToolKind {
    match key {
        "read" | "readfile" | "readmanyfiles" | "notebookread" | "viewimage" | "view" | "cat" => {
            ToolKind::Read
        }
        "write" | "writefile" | "create" | "createfile" => ToolKind::Write,
        "edit"
        | "multiedit"
        | "editfile"
        | "notebookedit"
        | "replace"
        | "applypatch"
        | "patch"
        | "searchreplace"
        | "strreplace"
        | "strreplacefile"
        | "strreplaceeditor"
        | "strreplacebasededittool"
        | "texteditor"
        | "delete"
        | "deletefile" => ToolKind::Edit,
        "bash" | "bashoutput" | "killshell" | "killbash" | "shell" | "execcommand"
        | "localshell" | "writestdin" | "runshellcommand" | "terminal" | "process"
        | "executecode" | "runterminalcmd" | "execute" | "executebash" | "ipython" | "exec"
        | "runcommand" => ToolKind::Shell,
        "grep" | "glob" | "ls" | "list" | "listdir" | "listdirectory" | "readfolder" | "find"
        | "findfiles" | "search" | "searchfilecontent" | "searchtext" | "grepfiles"
        | "grepsearch" | "filesearch" | "codebasesearch" | "codesearch" | "searchfiles" => {
            ToolKind::Search
        }
        "webfetch" | "fetch" | "fetchurl" | "webextract" | "browse" | "websearch"
        | "googlewebsearch" | "googlesearch" | "searchweb" => ToolKind::Fetch,
        "todowrite" | "todoread" | "todos" | "todo" | "updateplan" | "writetodos"
        | "settodolist" | "exitplanmode" | "think" | "sequentialthinking" | "plan" => {
            ToolKind::Think
        }
        _ => ToolKind::Other,
    }
}
