//! Validation of what an untrusted parser returned (SPEC §2).
//!
//! The sandbox converts a guest's return value into a plain [`Value`]; this module decides what
//! of it reaches the renderer. An entry with an unknown kind or a missing or ill-typed required
//! field is rejected with a [`Rejection`] saying why (the registry counts these in diagnostics).
//! Extra fields are kept, and so is the order of the parser's keys. Every string, array, object
//! and nesting level is bounded by [`EntryLimits`], so a hostile parser cannot hand the page a
//! value that freezes it.

use std::fmt;

use serde::Serialize;
use serde_json::{Map, Number, Value};

use crate::entry::{
    kind_keys, DeltaText, Diff, DiffChangeType, Extra, Init, Layout, Need, ResultInfo, RunResult,
    Text, ToolCall, ToolResult, TranscriptEntry, MAX_KEYS,
};
use crate::RawJson;

/// Bounds on what one line's entries may hold. The defaults are generous for real runs (a tool
/// result carrying a whole file) and small enough that a hostile value cannot hurt the page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryLimits {
    /// Longest string anywhere in an entry, in UTF-8 bytes.
    pub max_string_bytes: usize,
    /// Longest array anywhere in an entry.
    pub max_array_len: usize,
    /// Most keys in any object of an entry.
    pub max_object_keys: usize,
    /// Deepest nesting of arrays and objects inside an entry (the entry itself is depth 1).
    pub max_depth: usize,
    /// Most entries one line may produce; the rest are dropped as `too_many_entries`.
    pub max_entries_per_line: usize,
}

impl Default for EntryLimits {
    fn default() -> Self {
        Self {
            max_string_bytes: 1 << 20,
            max_array_len: 10_000,
            max_object_keys: 1_000,
            max_depth: 32,
            max_entries_per_line: 1_000,
        }
    }
}

/// The largest string an entry limit accepts: 256 MiB.
pub const MAX_STRING_BYTES: usize = 256 << 20;
/// The most entries one line may be allowed to produce.
pub const MAX_ENTRIES_PER_LINE: usize = 1_000_000;
/// The largest array length or object key count an entry limit accepts.
pub const MAX_COUNT: usize = 10_000_000;
/// The deepest nesting an entry limit accepts.
pub const MAX_DEPTH: usize = 1_000;

/// An entry limit out of its range: which one (its camelCase option name) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LimitError {
    /// The option's camelCase name, as the JS options object spells it.
    pub option: &'static str,
    /// What is wrong with it.
    pub message: String,
}

impl std::fmt::Display for LimitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.option, self.message)
    }
}

impl EntryLimits {
    /// Checks every limit is above 0 and at most its maximum (the `MAX_*` constants): the one
    /// range check of entry limits, for the registry's options and the CLI's flags alike.
    ///
    /// # Errors
    /// The first limit out of its range.
    pub fn validate(&self) -> Result<(), LimitError> {
        let check = |option: &'static str, v: usize, max: usize| {
            if v > 0 && v <= max {
                Ok(())
            } else {
                Err(LimitError {
                    option,
                    message: format!("must be above 0 and at most {max}, got {v}"),
                })
            }
        };
        check("maxStringBytes", self.max_string_bytes, MAX_STRING_BYTES)?;
        check(
            "maxEntriesPerLine",
            self.max_entries_per_line,
            MAX_ENTRIES_PER_LINE,
        )?;
        check("maxArrayLen", self.max_array_len, MAX_COUNT)?;
        check("maxObjectKeys", self.max_object_keys, MAX_COUNT)?;
        check("maxDepth", self.max_depth, MAX_DEPTH)
    }
}

/// Why an entry was dropped. [`Rejection::code`] is the stable key diagnostics count by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rejection {
    /// The entry is not an object (a string, number, array, …).
    NotAnObject {
        /// The JSON type found instead.
        found: &'static str,
    },
    /// No `kind`, or `kind` is not a string.
    MissingKind,
    /// `kind` is not one of the spec's kinds.
    UnknownKind {
        /// The kind the parser used.
        kind: String,
    },
    /// A required field is absent (or `undefined`).
    MissingField {
        /// The entry's kind.
        kind: &'static str,
        /// The missing field.
        field: &'static str,
    },
    /// A required field has the wrong type.
    IllTypedField {
        /// The entry's kind.
        kind: &'static str,
        /// The offending field.
        field: &'static str,
        /// What the spec requires there.
        expected: &'static str,
        /// The JSON type found.
        found: &'static str,
    },
    /// A string, array, object or nesting level is over its [`EntryLimits`] bound.
    TooLarge {
        /// Which bound, e.g. `max_string_bytes`.
        limit: &'static str,
        /// The bound's value.
        max: usize,
    },
    /// The line produced more than `max_entries_per_line` entries; this one is past the cap.
    TooManyEntries {
        /// The cap.
        max: usize,
    },
}

impl Rejection {
    /// A stable snake_case key for counting rejections by reason.
    pub fn code(&self) -> &'static str {
        match self {
            Self::NotAnObject { .. } => "not_an_object",
            Self::MissingKind => "missing_kind",
            Self::UnknownKind { .. } => "unknown_kind",
            Self::MissingField { .. } => "missing_field",
            Self::IllTypedField { .. } => "ill_typed_field",
            Self::TooLarge { .. } => "too_large",
            Self::TooManyEntries { .. } => "too_many_entries",
        }
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotAnObject { found } => write!(f, "entry is {found}, not an object"),
            Self::MissingKind => f.write_str("entry has no string `kind`"),
            Self::UnknownKind { kind } => write!(f, "unknown entry kind {kind:?}"),
            Self::MissingField { kind, field } => {
                write!(f, "{kind} entry is missing required field `{field}`")
            }
            Self::IllTypedField {
                kind,
                field,
                expected,
                found,
            } => {
                write!(
                    f,
                    "{kind} entry field `{field}` must be {expected}, found {found}"
                )
            }
            Self::TooLarge { limit, max } => write!(f, "entry exceeds {limit} ({max})"),
            Self::TooManyEntries { max } => {
                write!(
                    f,
                    "line produced more than {max} entries (max_entries_per_line)"
                )
            }
        }
    }
}

impl std::error::Error for Rejection {}

/// The JSON type name of a value, as error messages show it.
pub fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The entries that survived validation of one line's return value, and why the rest did not.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CheckedEntries {
    /// Valid entries, in the order the parser returned them.
    pub entries: Vec<TranscriptEntry>,
    /// One per dropped entry, in the order the parser returned them.
    pub dropped: Vec<Dropped>,
}

/// An entry the parser returned that validation dropped.
#[derive(Clone, Debug, PartialEq)]
pub struct Dropped {
    /// Why it was dropped.
    pub why: Rejection,
    /// What it was, when the caller asked for previews ([`entries_from_return_previewing`]);
    /// `None` otherwise, and past a line's first [`MAX_PREVIEWS_PER_LINE`] dropped entries.
    pub preview: Option<EntryPreview>,
}

impl Dropped {
    /// A dropped entry without a preview.
    pub fn new(why: Rejection) -> Self {
        Self { why, preview: None }
    }
}

/// A dropped entry as the JS API reports it (`LineUpdate.dropped`): why, and what it was when
/// previews were asked for (`droppedPreviewChars`).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DroppedEntry {
    /// Why, as a stable code (`unknown_kind`, `too_many_entries`, …): the key diagnostics'
    /// `droppedEntries` counts it under.
    pub code: String,
    /// Why, as a sentence.
    pub message: String,
    /// The start of the entry's JSON text as the parser returned it; absent without previews.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub entry: Option<String>,
    /// Characters in the entry's whole JSON text (more than `entry` holds when it was cut);
    /// absent without previews.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub entry_chars: Option<usize>,
}

impl From<&Dropped> for DroppedEntry {
    fn from(d: &Dropped) -> Self {
        Self {
            code: d.why.code().to_owned(),
            message: d.why.to_string(),
            entry: d.preview.as_ref().map(|p| p.json.clone()),
            entry_chars: d.preview.as_ref().map(|p| p.chars),
        }
    }
}

/// The start of a dropped entry as the parser returned it: its JSON text, cut after a number
/// of characters the caller chose, and how long the whole text is. Written as the value is
/// walked, so a huge entry costs no more than the characters kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryPreview {
    /// The entry's JSON text (`serde_json`'s compact form), its first characters.
    pub json: String,
    /// Characters (Unicode scalar values) in the whole JSON text.
    pub chars: usize,
}

/// Most dropped entries of one line that get a preview: a line may return a million invalid
/// entries, and the report shows a few.
pub const MAX_PREVIEWS_PER_LINE: usize = 32;

impl EntryPreview {
    /// The first `max_chars` characters of `value`'s JSON text, and its length in characters.
    pub fn of(value: &Value, max_chars: usize) -> Self {
        let mut head = Head {
            kept: Vec::new(),
            max_chars,
            chars: 0,
        };
        // Writing into memory cannot fail, and a `Value` always serialises.
        let _ = serde_json::to_writer(&mut head, value);
        Self {
            json: String::from_utf8_lossy(&head.kept).into_owned(),
            chars: head.chars,
        }
    }
}

/// A writer that keeps the first `max_chars` characters of UTF-8 text and counts them all.
struct Head {
    kept: Vec<u8>,
    max_chars: usize,
    chars: usize,
}

impl std::io::Write for Head {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        for &b in buf {
            // A byte that is not a continuation byte begins a character.
            let begins = b & 0xC0 != 0x80;
            if begins {
                self.chars += 1;
            }
            if self.chars <= self.max_chars && self.chars > 0 {
                self.kept.push(b);
            }
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Interprets a parser's whole return value for one line (SPEC §2): an array of entries, a single
/// entry object (accepted as `[entry]`), or `null` (the sandbox maps `undefined` to `null`) for
/// "nothing". Each entry is validated; invalid ones are dropped with their reason.
///
/// # Errors
/// Any other return value (a string, a number, a boolean) is a failure of the whole line; the
/// error names what was returned.
pub fn entries_from_return(value: Value, limits: &EntryLimits) -> Result<CheckedEntries, String> {
    entries_from_return_previewing(value, limits, 0)
}

/// [`entries_from_return`], keeping a preview of the first `preview_chars` characters of each
/// dropped entry (of a line's first [`MAX_PREVIEWS_PER_LINE`]); none with 0. A report that
/// shows what a parser returned asks for them: each entry is then written as JSON before it is
/// validated (validation takes the value apart), a cost the page does not pay.
///
/// # Errors
/// As [`entries_from_return`].
pub fn entries_from_return_previewing(
    value: Value,
    limits: &EntryLimits,
    preview_chars: usize,
) -> Result<CheckedEntries, String> {
    let items = match value {
        Value::Null => return Ok(CheckedEntries::default()),
        Value::Array(items) => items,
        obj @ Value::Object(_) => vec![obj],
        other => {
            return Err(format!(
                "parser returned {}, expected an array of entries",
                json_type(&other)
            ))
        }
    };
    let mut out = CheckedEntries::default();
    for (i, item) in items.into_iter().enumerate() {
        let preview = (preview_chars > 0 && out.dropped.len() < MAX_PREVIEWS_PER_LINE)
            .then(|| EntryPreview::of(&item, preview_chars));
        let why = if i >= limits.max_entries_per_line {
            Rejection::TooManyEntries {
                max: limits.max_entries_per_line,
            }
        } else {
            match validate_entry(item, limits) {
                Ok(entry) => {
                    out.entries.push(entry);
                    continue;
                }
                Err(why) => why,
            }
        };
        out.dropped.push(Dropped { why, preview });
    }
    Ok(out)
}

/// Validates one untrusted entry value against SPEC §2.
///
/// Optional fields (`delta`, `toolUseId`, `toolName`, …) of the wrong type, `null` included, are
/// not the typed field: they are kept as extra fields with the value the parser gave, as
/// Paperclip passes them through. `tool_call.input` may be absent. The entry remembers the
/// order of the parser's keys and serialises in it.
///
/// # Errors
/// A [`Rejection`] naming the first problem found.
pub fn validate_entry(value: Value, limits: &EntryLimits) -> Result<TranscriptEntry, Rejection> {
    let obj = match value {
        Value::Object(obj) => obj,
        other => {
            return Err(Rejection::NotAnObject {
                found: json_type(&other),
            })
        }
    };
    check_size_object(&obj, limits, 1)?;
    let (kind, keys) = match obj.get("kind") {
        Some(Value::String(k)) => {
            kind_keys(k).ok_or_else(|| Rejection::UnknownKind { kind: k.clone() })?
        }
        _ => return Err(Rejection::MissingKind),
    };
    let (mut f, extra) = Fields::sort(kind, keys, obj);
    let mut entry = match kind {
        "assistant" | "thinking" => {
            let body = DeltaText {
                ts: f.string("ts")?.into(),
                text: f.string("text")?,
                delta: f.opt_bool("delta"),
                extra: Extra::new(),
            };
            if kind == "assistant" {
                TranscriptEntry::Assistant(body)
            } else {
                TranscriptEntry::Thinking(body)
            }
        }
        "user" | "stderr" | "system" | "stdout" => {
            let body = Text {
                ts: f.string("ts")?.into(),
                text: f.string("text")?.into(),
                extra: Extra::new(),
            };
            match kind {
                "user" => TranscriptEntry::User(body),
                "stderr" => TranscriptEntry::Stderr(body),
                "system" => TranscriptEntry::System(body),
                _ => TranscriptEntry::Stdout(body),
            }
        }
        "tool_call" => TranscriptEntry::ToolCall(Box::new(ToolCall {
            ts: f.string("ts")?.into(),
            name: f.string("name")?,
            // `input: unknown`: any JSON value, or absent (four real parsers leave it unset).
            input: f.opt_any("input").map(RawJson::from),
            tool_use_id: f.opt_string("toolUseId"),
            invocation_id: f.opt_string("invocationId"),
            action_request_id: f.opt_string("actionRequestId"),
            extra: Extra::new(),
        })),
        "tool_result" => TranscriptEntry::ToolResult(Box::new(ToolResult {
            ts: f.string("ts")?.into(),
            tool_use_id: f.string("toolUseId")?,
            content: f.string("content")?,
            is_error: f.bool("isError")?,
            tool_name: f.opt_string("toolName"),
            extra: Extra::new(),
        })),
        "init" => TranscriptEntry::Init(Box::new(Init {
            ts: f.string("ts")?.into(),
            model: f.string("model")?,
            session_id: f.string("sessionId")?,
            extra: Extra::new(),
        })),
        "result" => TranscriptEntry::Result(Box::new(RunResult {
            ts: f.string("ts")?.into(),
            text: f.string("text")?,
            info: ResultInfo {
                input_tokens: f.number("inputTokens")?,
                output_tokens: f.number("outputTokens")?,
                cached_tokens: f.number("cachedTokens")?,
                cost_usd: f.number("costUsd")?,
                subtype: f.string("subtype")?,
                is_error: f.bool("isError")?,
                errors: f.strings("errors")?,
            },
            extra: Extra::new(),
        })),
        _ => TranscriptEntry::Diff(Box::new(Diff {
            ts: f.string("ts")?.into(),
            change_type: f.change_type("changeType")?,
            text: f.string("text")?,
            extra: Extra::new(),
        })),
    };
    entry.set_extra(extra);
    Ok(entry)
}

fn ill(
    kind: &'static str,
    field: &'static str,
    expected: &'static str,
    found: &'static str,
) -> Rejection {
    Rejection::IllTypedField {
        kind,
        field,
        expected,
        found,
    }
}

/// The typed fields of one entry, sorted out of the parser's object by its kind's table.
struct Fields {
    kind: &'static str,
    keys: &'static [(&'static str, Need)],
    slots: [Option<Value>; MAX_KEYS],
}

impl Fields {
    /// One pass over the parser's keys in their order: a table key whose value may be the
    /// typed field goes to its slot, anything else is an extra field; the [`Layout`] records
    /// where each sat.
    fn sort(
        kind: &'static str,
        keys: &'static [(&'static str, Need)],
        obj: Map<String, Value>,
    ) -> (Self, Extra) {
        let mut slots: [Option<Value>; MAX_KEYS] = Default::default();
        let mut layout = Layout::new();
        for (key, value) in obj {
            let typed = keys
                .iter()
                .position(|(name, need)| *name == key && need.is_typed(&value));
            match typed.and_then(|i| slots.get_mut(i).map(|slot| (i, slot))) {
                Some((i, slot)) => {
                    layout.typed(i);
                    *slot = Some(value);
                }
                None => layout.extra(key, value),
            }
        }
        (Self { kind, keys, slots }, layout.finish())
    }

    fn take_opt(&mut self, field: &'static str) -> Option<Value> {
        let i = self.keys.iter().position(|(name, _)| *name == field)?;
        self.slots.get_mut(i).and_then(Option::take)
    }
    fn take(&mut self, field: &'static str) -> Result<Value, Rejection> {
        self.take_opt(field).ok_or(Rejection::MissingField {
            kind: self.kind,
            field,
        })
    }
    fn string(&mut self, field: &'static str) -> Result<String, Rejection> {
        match self.take(field)? {
            Value::String(s) => Ok(s),
            other => Err(ill(self.kind, field, "a string", json_type(&other))),
        }
    }
    fn bool(&mut self, field: &'static str) -> Result<bool, Rejection> {
        match self.take(field)? {
            Value::Bool(b) => Ok(b),
            other => Err(ill(self.kind, field, "a boolean", json_type(&other))),
        }
    }
    fn number(&mut self, field: &'static str) -> Result<Number, Rejection> {
        match self.take(field)? {
            Value::Number(n) => Ok(n),
            // A NaN or Infinity reaches us as null (JSON has no such numbers).
            other => Err(ill(self.kind, field, "a finite number", json_type(&other))),
        }
    }
    fn strings(&mut self, field: &'static str) -> Result<Vec<String>, Rejection> {
        match self.take(field)? {
            Value::Array(items) => items
                .into_iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s),
                    other => Err(ill(
                        self.kind,
                        field,
                        "an array of strings",
                        json_type(&other),
                    )),
                })
                .collect(),
            other => Err(ill(
                self.kind,
                field,
                "an array of strings",
                json_type(&other),
            )),
        }
    }
    fn change_type(&mut self, field: &'static str) -> Result<DiffChangeType, Rejection> {
        match self.take(field)? {
            Value::String(s) => match s.as_str() {
                "add" => Ok(DiffChangeType::Add),
                "remove" => Ok(DiffChangeType::Remove),
                "context" => Ok(DiffChangeType::Context),
                "hunk" => Ok(DiffChangeType::Hunk),
                "file_header" => Ok(DiffChangeType::FileHeader),
                "truncation" => Ok(DiffChangeType::Truncation),
                _ => Err(ill(
                    self.kind,
                    field,
                    "one of add|remove|context|hunk|file_header|truncation",
                    "another string",
                )),
            },
            other => Err(ill(self.kind, field, "a string", json_type(&other))),
        }
    }
    /// An optional field: the sort put only values of its type in its slot.
    fn opt_any(&mut self, field: &'static str) -> Option<Value> {
        self.take_opt(field)
    }
    fn opt_string(&mut self, field: &'static str) -> Option<String> {
        match self.take_opt(field) {
            Some(Value::String(s)) => Some(s),
            _ => None,
        }
    }
    fn opt_bool(&mut self, field: &'static str) -> Option<bool> {
        match self.take_opt(field) {
            Some(Value::Bool(b)) => Some(b),
            _ => None,
        }
    }
}

fn check_size_object(
    obj: &Map<String, Value>,
    limits: &EntryLimits,
    depth: usize,
) -> Result<(), Rejection> {
    if depth > limits.max_depth {
        return Err(Rejection::TooLarge {
            limit: "max_depth",
            max: limits.max_depth,
        });
    }
    if obj.len() > limits.max_object_keys {
        return Err(Rejection::TooLarge {
            limit: "max_object_keys",
            max: limits.max_object_keys,
        });
    }
    for (k, v) in obj {
        if k.len() > limits.max_string_bytes {
            return Err(Rejection::TooLarge {
                limit: "max_string_bytes",
                max: limits.max_string_bytes,
            });
        }
        check_size(v, limits, depth)?;
    }
    Ok(())
}

fn check_size(v: &Value, limits: &EntryLimits, depth: usize) -> Result<(), Rejection> {
    match v {
        Value::String(s) if s.len() > limits.max_string_bytes => Err(Rejection::TooLarge {
            limit: "max_string_bytes",
            max: limits.max_string_bytes,
        }),
        Value::Array(items) => {
            if depth + 1 > limits.max_depth {
                return Err(Rejection::TooLarge {
                    limit: "max_depth",
                    max: limits.max_depth,
                });
            }
            if items.len() > limits.max_array_len {
                return Err(Rejection::TooLarge {
                    limit: "max_array_len",
                    max: limits.max_array_len,
                });
            }
            items
                .iter()
                .try_for_each(|v| check_size(v, limits, depth + 1))
        }
        Value::Object(obj) => check_size_object(obj, limits, depth + 1),
        _ => Ok(()),
    }
}
