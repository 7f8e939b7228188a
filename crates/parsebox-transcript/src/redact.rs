//! Username redaction in home paths, as Paperclip's "censor username in logs" option does:
//! `/Users/name`, `/home/name` and `C:\Users\name` keep the first letter of the user name and
//! replace each further code point with `*` (at least one `*`).
//!
//! In parsed entries only the fields Paperclip's redaction knows are redacted (see
//! [`redact_entry_paths`]); extra fields, ids and `kind`/`ts` are passed through untouched.

use serde_json::Value;

use crate::entry::TranscriptEntry;
use crate::jsstr::is_js_whitespace;
use crate::RawJson;

/// Redacts home paths in the fields of `entry` that Paperclip redacts, and only those:
///
/// | kind | redacted |
/// |---|---|
/// | assistant, thinking, user, stderr, system, stdout, diff | `text` |
/// | tool_call | `name`, and every string inside `input` (values, not object keys) |
/// | tool_result | `content` |
/// | init | `model`, `sessionId` |
/// | result | `text`, `subtype`, each of `errors` |
///
/// Ids (`toolUseId`, …), `toolName`, `ts` and extra fields are left as the parser gave them.
pub fn redact_entry_paths(entry: &mut TranscriptEntry) {
    /// Redacts `s`; whether that changed it.
    fn redact(s: &mut String) -> bool {
        let r = redact_home_paths(s);
        let changed = r != *s;
        *s = r;
        changed
    }
    /// Redacts every string inside `v`; whether that changed any.
    fn redact_value(v: &mut Value) -> bool {
        match v {
            Value::String(s) => redact(s),
            Value::Array(items) => items.iter_mut().fold(false, |c, v| redact_value(v) | c),
            Value::Object(obj) => obj.values_mut().fold(false, |c, v| redact_value(v) | c),
            Value::Null | Value::Bool(_) | Value::Number(_) => false,
        }
    }
    match entry {
        TranscriptEntry::Assistant(b) | TranscriptEntry::Thinking(b) => {
            redact(&mut b.text);
        }
        TranscriptEntry::User(b)
        | TranscriptEntry::Stderr(b)
        | TranscriptEntry::System(b)
        | TranscriptEntry::Stdout(b) => {
            // A text with no home path stays as it is (a slice of its chunk stays one).
            let r = redact_home_paths(&b.text);
            if r != *b.text {
                b.text = r.into();
            }
        }
        TranscriptEntry::Diff(b) => {
            redact(&mut b.text);
        }
        TranscriptEntry::ToolCall(b) => {
            redact(&mut b.name);
            if let Some(input) = &mut b.input {
                // Kept as text: read, redacted, and written again when that changed it.
                let mut value = input.value();
                if redact_value(&mut value) {
                    *input = RawJson::from_value(&value);
                }
            }
        }
        TranscriptEntry::ToolResult(b) => {
            redact(&mut b.content);
        }
        TranscriptEntry::Init(b) => {
            redact(&mut b.model);
            redact(&mut b.session_id);
        }
        TranscriptEntry::Result(b) => {
            redact(&mut b.text);
            redact(&mut b.info.subtype);
            for error in &mut b.info.errors {
                redact(error);
            }
        }
    }
}

/// Redacts the user-name segment of every home path in `text`.
pub fn redact_home_paths(text: &str) -> String {
    // Cheap pre-check: most lines carry no home path at all.
    if !text.contains("/Users/") && !text.contains("/home/") && !text.contains(":\\Users\\") {
        return text.to_owned();
    }
    let unix = redact_after(text, "/Users/", false);
    let unix = redact_after(&unix, "/home/", false);
    redact_after(&unix, "\\Users\\", true)
}

/// Replaces the segment after each `marker` (up to a `/`, `\` or white space). With
/// `needs_drive`, the marker must follow an ASCII drive letter and `:` (`C:\Users\`).
fn redact_after(text: &str, marker: &str, needs_drive: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut consumed = 0usize; // bytes of `text` before `rest`
    while let Some(pos) = rest.find(marker) {
        let head_end = pos + marker.len();
        let (head, tail) = rest.split_at(head_end);
        let drive_ok = !needs_drive || {
            let before = text.get(..consumed + pos).unwrap_or("");
            let mut it = before.chars().rev();
            matches!((it.next(), it.next()), (Some(':'), Some(d)) if d.is_ascii_alphabetic())
        };
        let seg_len = tail
            .find(|c: char| c == '/' || c == '\\' || is_js_whitespace(c))
            .unwrap_or(tail.len());
        out.push_str(head);
        let (user, after) = tail.split_at(seg_len);
        if drive_ok && !user.is_empty() {
            out.push_str(&mask(user));
        } else {
            out.push_str(user);
        }
        consumed += head_end + seg_len;
        rest = after;
    }
    out.push_str(rest);
    out
}

fn mask(user: &str) -> String {
    let mut chars = user.chars();
    let Some(first) = chars.next() else {
        return String::new();
    };
    let stars = chars.count().max(1);
    let mut s = String::with_capacity(first.len_utf8() + stars);
    s.push(first);
    s.extend(std::iter::repeat_n('*', stars));
    s
}

#[cfg(test)]
mod tests {
    use super::redact_home_paths as r;

    #[test]
    fn masks_every_kind_of_home_path() {
        assert_eq!(r("cd /Users/alice/src"), "cd /Users/a****/src");
        assert_eq!(r("/home/bob and /home/bob/x"), "/home/b** and /home/b**/x");
        assert_eq!(r(r"C:\Users\carol\Desktop"), r"C:\Users\c****\Desktop");
        // A one-letter name still gets one star, as upstream does.
        assert_eq!(r("/home/x"), "/home/x*");
        // Code points, not bytes: each star stands for one character.
        assert_eq!(r("/home/élodie/"), "/home/é*****/");
        // No drive letter: not a Windows home path.
        assert_eq!(r(r"\Users\dave"), r"\Users\dave");
        assert_eq!(r("no paths here"), "no paths here");
        assert_eq!(r("/home/ trailing"), "/home/ trailing");
    }
}
