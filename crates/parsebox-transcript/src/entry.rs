//! The `TranscriptEntry` union (SPEC §2) as Rust types with the wire shape the UI renders:
//! a `kind` tag, camelCase fields, and any extra plain-JSON fields a parser added kept as they
//! came (the raw view shows them).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// Fields beyond the spec's table that a parser returned, kept in the order it gave them.
/// Only plain JSON data can be here: the sandbox drops functions, symbols and `undefined`.
///
/// Nearly every entry has none, so the map is boxed and absent until needed: that keeps a
/// `TranscriptEntry` small (72 bytes instead of 264), which is what makes replaying a
/// 100,000-line run cheap.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Extra(Option<Box<Map<String, Value>>>);

impl Extra {
    /// No extra fields.
    pub fn new() -> Self {
        Self(None)
    }
    /// The extra field `key`, if present.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.as_ref().and_then(|m| m.get(key))
    }
    /// `true` when there are no extra fields.
    pub fn is_empty(&self) -> bool {
        self.0.as_ref().is_none_or(|m| m.is_empty())
    }
    /// The extra fields in order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.0.iter().flat_map(|m| m.iter())
    }
    /// Mutable access to the values, in order.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Value> {
        self.0.iter_mut().flat_map(|m| m.values_mut())
    }
}

/// In TypeScript the extra fields are an index signature beside the entry's own fields.
#[cfg(feature = "ts")]
impl ts_rs::TS for Extra {
    type WithoutGenerics = Self;
    type OptionInnerType = Self;
    fn name(cfg: &ts_rs::Config) -> String {
        <Self as ts_rs::TS>::inline_flattened(cfg)
    }
    fn inline(cfg: &ts_rs::Config) -> String {
        <Self as ts_rs::TS>::inline_flattened(cfg)
    }
    fn inline_flattened(cfg: &ts_rs::Config) -> String {
        format!(
            "{{ [extra: string]: {} | undefined }}",
            <Value as ts_rs::TS>::name(cfg)
        )
    }
    fn visit_dependencies(v: &mut impl ts_rs::TypeVisitor) {
        v.visit::<Value>();
    }
}

impl From<Map<String, Value>> for Extra {
    fn from(map: Map<String, Value>) -> Self {
        if map.is_empty() {
            Self(None)
        } else {
            Self(Some(Box::new(map)))
        }
    }
}

impl Serialize for Extra {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        for (k, v) in self.iter() {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Extra {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Map::<String, Value>::deserialize(deserializer).map(Self::from)
    }
}

/// One rendered item of a run's transcript. Serialises to exactly the object shape Paperclip's
/// UI expects, e.g. `{"kind":"tool_call","ts":"…","name":"shell","input":{…},"toolUseId":"t1"}`.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TranscriptEntry {
    /// Assistant message text; `delta: true` pieces merge with the previous delta.
    Assistant(DeltaText),
    /// Thinking / reasoning text; `delta: true` pieces merge with the previous delta.
    Thinking(DeltaText),
    /// A user message (rare: agent-initiated prompts).
    User(Text),
    /// A stderr chunk, or an error line a parser marks as such.
    Stderr(Text),
    /// A system or adapter message.
    System(Text),
    /// Raw stdout: the generic parser's output and every fallback.
    Stdout(Text),
    /// A tool invocation.
    ToolCall(Box<ToolCall>),
    /// The result of a tool invocation, paired with its call by `toolUseId`.
    ToolResult(Box<ToolResult>),
    /// Session start: model and session id.
    Init(Box<Init>),
    /// End of a turn: final text, token usage and cost.
    Result(Box<RunResult>),
    /// One line of a diff.
    Diff(Box<Diff>),
}

/// Body of `assistant` and `thinking` entries.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", ts(rename = "DeltaTextBody"))]
pub struct DeltaText {
    /// ISO timestamp of the line that produced the entry.
    pub ts: String,
    /// The text.
    pub text: String,
    /// `true` when this is a streamed piece that continues the previous one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub delta: Option<bool>,
    /// Extra plain-JSON fields the parser returned.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Body of `user`, `stderr`, `system` and `stdout` entries.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", ts(rename = "TextBody"))]
pub struct Text {
    /// ISO timestamp of the line or chunk that produced the entry.
    pub ts: String,
    /// The text.
    pub text: String,
    /// Extra plain-JSON fields the parser returned.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Body of `tool_call` entries.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", ts(rename = "ToolCallBody"))]
pub struct ToolCall {
    /// ISO timestamp.
    pub ts: String,
    /// Tool name, e.g. `shell` or `read`.
    pub name: String,
    /// The tool's input: any JSON value.
    pub input: Value,
    /// Pairs the call with its `tool_result`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub tool_use_id: Option<String>,
    /// Adapter-specific invocation id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub invocation_id: Option<String>,
    /// Adapter-specific action request id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub action_request_id: Option<String>,
    /// Extra plain-JSON fields the parser returned.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Body of `tool_result` entries.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", ts(rename = "ToolResultBody"))]
pub struct ToolResult {
    /// ISO timestamp.
    pub ts: String,
    /// The `toolUseId` of the call this answers.
    pub tool_use_id: String,
    /// The result text.
    pub content: String,
    /// `true` renders the result as an error.
    pub is_error: bool,
    /// The tool's name, when the parser knows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub tool_name: Option<String>,
    /// Extra plain-JSON fields the parser returned.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Body of `init` entries.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", ts(rename = "InitBody"))]
pub struct Init {
    /// ISO timestamp.
    pub ts: String,
    /// The model the agent runs.
    pub model: String,
    /// The agent's session id.
    pub session_id: String,
    /// Extra plain-JSON fields the parser returned.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Body of `result` entries.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", ts(rename = "ResultBody"))]
pub struct RunResult {
    /// ISO timestamp.
    pub ts: String,
    /// The turn's final text.
    pub text: String,
    /// Input tokens used.
    pub input_tokens: Number,
    /// Output tokens used.
    pub output_tokens: Number,
    /// Cached input tokens.
    pub cached_tokens: Number,
    /// Cost in US dollars.
    pub cost_usd: Number,
    /// Result subtype, e.g. `success`.
    pub subtype: String,
    /// `true` when the turn ended in error.
    pub is_error: bool,
    /// Error messages.
    pub errors: Vec<String>,
    /// Extra plain-JSON fields the parser returned.
    #[serde(flatten)]
    pub extra: Extra,
}

/// What one diff line is.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiffChangeType {
    /// An added line.
    Add,
    /// A removed line.
    Remove,
    /// An unchanged context line.
    Context,
    /// A `@@` hunk header.
    Hunk,
    /// A file header.
    FileHeader,
    /// A marker that the diff was cut short.
    Truncation,
}

/// Body of `diff` entries.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", ts(rename = "DiffBody"))]
pub struct Diff {
    /// ISO timestamp.
    pub ts: String,
    /// What this diff line is.
    pub change_type: DiffChangeType,
    /// The line's text.
    pub text: String,
    /// Extra plain-JSON fields the parser returned.
    #[serde(flatten)]
    pub extra: Extra,
}

impl TranscriptEntry {
    /// A `stdout` entry: what the generic parser makes of a line.
    pub fn stdout(ts: &str, text: &str) -> Self {
        Self::Stdout(Text {
            ts: ts.to_owned(),
            text: text.to_owned(),
            extra: Extra::new(),
        })
    }

    /// A `stderr` entry.
    pub fn stderr(ts: &str, text: &str) -> Self {
        Self::Stderr(Text {
            ts: ts.to_owned(),
            text: text.to_owned(),
            extra: Extra::new(),
        })
    }

    /// A `system` entry.
    pub fn system(ts: &str, text: &str) -> Self {
        Self::System(Text {
            ts: ts.to_owned(),
            text: text.to_owned(),
            extra: Extra::new(),
        })
    }

    /// The entry's `kind` tag as the UI sees it.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Assistant(_) => "assistant",
            Self::Thinking(_) => "thinking",
            Self::User(_) => "user",
            Self::Stderr(_) => "stderr",
            Self::System(_) => "system",
            Self::Stdout(_) => "stdout",
            Self::ToolCall(_) => "tool_call",
            Self::ToolResult(_) => "tool_result",
            Self::Init(_) => "init",
            Self::Result(_) => "result",
            Self::Diff(_) => "diff",
        }
    }

    /// The entry's timestamp.
    pub fn ts(&self) -> &str {
        match self {
            Self::Assistant(b) | Self::Thinking(b) => &b.ts,
            Self::User(b) | Self::Stderr(b) | Self::System(b) | Self::Stdout(b) => &b.ts,
            Self::ToolCall(b) => &b.ts,
            Self::ToolResult(b) => &b.ts,
            Self::Init(b) => &b.ts,
            Self::Result(b) => &b.ts,
            Self::Diff(b) => &b.ts,
        }
    }

    /// The entry's text for kinds that carry one (`text` field), else `None`.
    pub fn text(&self) -> Option<&str> {
        match self {
            Self::Assistant(b) | Self::Thinking(b) => Some(&b.text),
            Self::User(b) | Self::Stderr(b) | Self::System(b) | Self::Stdout(b) => Some(&b.text),
            Self::Result(b) => Some(&b.text),
            Self::Diff(b) => Some(&b.text),
            Self::ToolCall(_) | Self::ToolResult(_) | Self::Init(_) => None,
        }
    }

    /// Mutable access to every free-text string of the entry (texts, tool input and content,
    /// errors, extra fields), for redaction. `kind`, `ts` and ids are left alone.
    pub(crate) fn for_each_text_mut(&mut self, f: &mut dyn FnMut(&mut String)) {
        fn in_value(v: &mut Value, f: &mut dyn FnMut(&mut String)) {
            match v {
                Value::String(s) => f(s),
                Value::Array(a) => a.iter_mut().for_each(|v| in_value(v, f)),
                Value::Object(o) => o.values_mut().for_each(|v| in_value(v, f)),
                _ => {}
            }
        }
        let extra = match self {
            Self::Assistant(b) | Self::Thinking(b) => {
                f(&mut b.text);
                &mut b.extra
            }
            Self::User(b) | Self::Stderr(b) | Self::System(b) | Self::Stdout(b) => {
                f(&mut b.text);
                &mut b.extra
            }
            Self::ToolCall(b) => {
                in_value(&mut b.input, f);
                &mut b.extra
            }
            Self::ToolResult(b) => {
                f(&mut b.content);
                &mut b.extra
            }
            Self::Init(b) => &mut b.extra,
            Self::Result(b) => {
                f(&mut b.text);
                b.errors.iter_mut().for_each(&mut *f);
                &mut b.extra
            }
            Self::Diff(b) => {
                f(&mut b.text);
                &mut b.extra
            }
        };
        extra.values_mut().for_each(|v| in_value(v, f));
    }
}

#[cfg(test)]
mod size {
    #[test]
    fn entries_stay_small() {
        // Replay speed depends on it: see `Extra`.
        assert!(std::mem::size_of::<super::TranscriptEntry>() <= 72);
    }
}
