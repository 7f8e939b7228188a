//! The `TranscriptEntry` union (SPEC §2) as Rust types with the wire shape the UI renders:
//! a `kind` tag, camelCase fields, and any extra plain-JSON fields a parser added kept as they
//! came (the raw view shows them). An entry serialises with its keys in the order the parser
//! gave them, as Paperclip, which passes the parser's objects through, shows them.

use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Number, Value};

use crate::{EntryText, RawJson, Ts};

/// How a key of an entry kind's table may be given (SPEC §2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Need {
    /// Must be present with its type, or the entry is dropped.
    Required,
    /// Optional boolean (`delta`).
    Bool,
    /// Optional string (`toolUseId` of a call, `toolName`, …).
    Str,
    /// Optional, any JSON value (`tool_call.input`).
    Any,
}

impl Need {
    /// Whether the parser's `value` for this key is the typed field. A required key always is
    /// (a wrong type rejects the entry); an optional one only with its type: otherwise the value
    /// stays an extra field, passed through as Paperclip passes it.
    pub(crate) fn is_typed(self, value: &Value) -> bool {
        match self {
            Self::Required | Self::Any => true,
            Self::Bool => value.is_boolean(),
            Self::Str => value.is_string(),
        }
    }
}

/// The most keys of any kind's table (`result`: `kind` and nine fields).
pub(crate) const MAX_KEYS: usize = 10;

/// The keys of one kind's table in declaration order, `kind` first: the slots of its
/// [`KeyOrder`]. Each body struct declares its fields in this order.
type KindKeys = &'static [(&'static str, Need)];

const DELTA_TEXT_KEYS: KindKeys = &[
    ("kind", Need::Required),
    ("ts", Need::Required),
    ("text", Need::Required),
    ("delta", Need::Bool),
];
const TEXT_KEYS: KindKeys = &[
    ("kind", Need::Required),
    ("ts", Need::Required),
    ("text", Need::Required),
];
const TOOL_CALL_KEYS: KindKeys = &[
    ("kind", Need::Required),
    ("ts", Need::Required),
    ("name", Need::Required),
    ("input", Need::Any),
    ("toolUseId", Need::Str),
    ("invocationId", Need::Str),
    ("actionRequestId", Need::Str),
];
const TOOL_RESULT_KEYS: KindKeys = &[
    ("kind", Need::Required),
    ("ts", Need::Required),
    ("toolUseId", Need::Required),
    ("content", Need::Required),
    ("isError", Need::Required),
    ("toolName", Need::Str),
];
const INIT_KEYS: KindKeys = &[
    ("kind", Need::Required),
    ("ts", Need::Required),
    ("model", Need::Required),
    ("sessionId", Need::Required),
];
const RESULT_KEYS: KindKeys = &[
    ("kind", Need::Required),
    ("ts", Need::Required),
    ("text", Need::Required),
    ("inputTokens", Need::Required),
    ("outputTokens", Need::Required),
    ("cachedTokens", Need::Required),
    ("costUsd", Need::Required),
    ("subtype", Need::Required),
    ("isError", Need::Required),
    ("errors", Need::Required),
];
const DIFF_KEYS: KindKeys = &[
    ("kind", Need::Required),
    ("ts", Need::Required),
    ("changeType", Need::Required),
    ("text", Need::Required),
];

/// The table of `kind` (its static name and keys), or `None` for a kind the spec does not
/// have. Validation sorts a parser's keys with it and serialisation names the slots with it.
pub(crate) fn kind_keys(kind: &str) -> Option<(&'static str, KindKeys)> {
    Some(match kind {
        "assistant" => ("assistant", DELTA_TEXT_KEYS),
        "thinking" => ("thinking", DELTA_TEXT_KEYS),
        "user" => ("user", TEXT_KEYS),
        "stderr" => ("stderr", TEXT_KEYS),
        "system" => ("system", TEXT_KEYS),
        "stdout" => ("stdout", TEXT_KEYS),
        "tool_call" => ("tool_call", TOOL_CALL_KEYS),
        "tool_result" => ("tool_result", TOOL_RESULT_KEYS),
        "init" => ("init", INIT_KEYS),
        "result" => ("result", RESULT_KEYS),
        "diff" => ("diff", DIFF_KEYS),
        _ => return None,
    })
}

/// The order in which the parser gave an entry's table keys (`kind` and the typed fields), as
/// slot numbers of its kind's table packed four bits each (slot + 1, lowest bits first, 0 ends
/// the list). `0` means declaration order, which is what most parsers write and what entries
/// built here use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct KeyOrder(u64);

impl KeyOrder {
    /// The order of `given`: distinct slots below [`MAX_KEYS`], in the parser's order.
    fn of(given: &[u8]) -> Self {
        if given.windows(2).all(|w| w.first() < w.get(1)) {
            return Self(0);
        }
        let code = given
            .iter()
            .rev()
            .fold(0u64, |code, &slot| (code << 4) | (u64::from(slot) + 1));
        Self(code)
    }

    /// The slots in the parser's order, for a kind with `len` slots.
    fn slots(self, len: usize) -> impl Iterator<Item = usize> {
        let mut code = self.0;
        if code == 0 {
            for slot in (0..len.min(MAX_KEYS) as u64).rev() {
                code = (code << 4) | (slot + 1);
            }
        }
        std::iter::from_fn(move || {
            let nibble = code & 0xF;
            code >>= 4;
            (nibble != 0).then(|| nibble as usize - 1)
        })
    }
}

/// Records the parser's key order while validation sorts its keys into typed slots and extra
/// fields; [`Layout::finish`] gives the entry's [`Extra`].
#[derive(Default)]
pub(crate) struct Layout {
    given: [u8; MAX_KEYS],
    typed: u8,
    fields: Map<String, Value>,
    gaps: Vec<u8>,
}

impl Layout {
    /// An empty layout.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// The next key is the table key in `slot` (`slot < MAX_KEYS`, each slot once).
    pub(crate) fn typed(&mut self, slot: usize) {
        if let Some(entry) = self.given.get_mut(usize::from(self.typed)) {
            *entry = slot as u8;
            self.typed += 1;
        }
    }

    /// The next key is an extra field.
    pub(crate) fn extra(&mut self, key: String, value: Value) {
        self.fields.insert(key, value);
        self.gaps.push(self.typed);
    }

    /// The layout as the entry keeps it.
    pub(crate) fn finish(mut self) -> Extra {
        // Extras after every table key (the usual case) need no positions.
        if self.gaps.iter().all(|&g| g == self.typed) {
            self.gaps = Vec::new();
        }
        let given = self.given.get(..usize::from(self.typed)).unwrap_or(&[]);
        let order = KeyOrder::of(given);
        if self.fields.is_empty() && order == KeyOrder::default() {
            return Extra::new();
        }
        Extra(Some(Box::new(ExtraFields {
            map: self.fields,
            gaps: self.gaps,
            order,
        })))
    }
}

/// What a parser gave beyond its kind's typed fields: the extra fields, kept in the order it
/// gave them, and where every key of the entry sat, so the entry serialises with the parser's
/// key order. Only plain JSON data can be here: the sandbox drops functions, symbols and
/// `undefined`.
///
/// Nearly every entry has no extra field and its keys in declaration order, so this is boxed
/// and absent until needed: that keeps a `TranscriptEntry` small (72 bytes instead of 264),
/// which is what makes replaying a 100,000-line run cheap.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Extra(Option<Box<ExtraFields>>);

#[derive(Clone, Debug, PartialEq)]
struct ExtraFields {
    map: Map<String, Value>,
    /// For each extra field, how many table keys came before it; empty when all of them came
    /// after the last table key.
    gaps: Vec<u8>,
    order: KeyOrder,
}

impl Extra {
    /// No extra fields, keys in declaration order.
    pub fn new() -> Self {
        Self::default()
    }
    /// The extra field `key`, if present.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.as_ref().and_then(|f| f.map.get(key))
    }
    /// `true` when there are no extra fields.
    pub fn is_empty(&self) -> bool {
        self.0.as_ref().is_none_or(|f| f.map.is_empty())
    }
    /// The extra fields in order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.0.iter().flat_map(|f| f.map.iter())
    }
    /// Mutable access to the values, in order.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Value> {
        self.0.iter_mut().flat_map(|f| f.map.values_mut())
    }
    /// The order of the entry's table keys.
    fn order(&self) -> KeyOrder {
        self.0.as_ref().map(|f| f.order).unwrap_or_default()
    }
    /// The extra fields in order, each with the number of table keys before it.
    fn placed(&self) -> impl Iterator<Item = (u8, &String, &Value)> {
        self.0.iter().flat_map(|f| {
            f.map
                .iter()
                .enumerate()
                .map(|(i, (k, v))| (f.gaps.get(i).copied().unwrap_or(u8::MAX), k, v))
        })
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

/// Extra fields after the entry's own, in declaration order.
impl From<Map<String, Value>> for Extra {
    fn from(map: Map<String, Value>) -> Self {
        Self((!map.is_empty()).then(|| {
            Box::new(ExtraFields {
                map,
                gaps: Vec::new(),
                order: KeyOrder::default(),
            })
        }))
    }
}

impl<'de> Deserialize<'de> for Extra {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Map::<String, Value>::deserialize(deserializer).map(Self::from)
    }
}

/// Deserialises a present value, `null` included, as `Some` of its JSON text (an absent one is
/// `None` by `#[serde(default)]`): `input: null` and no `input` are different entries.
fn present_raw<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<RawJson>, D::Error> {
    RawJson::deserialize(deserializer).map(Some)
}

/// One rendered item of a run's transcript. Serialises to exactly the object shape Paperclip's
/// UI expects, e.g. `{"kind":"tool_call","ts":"…","name":"shell","input":{…},"toolUseId":"t1"}`,
/// with the keys in the order the parser gave them (declaration order for entries built here).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TranscriptEntry {
    /// Assistant message text; streamed pieces merge (see [`DeltaText::is_delta`]).
    Assistant(DeltaText),
    /// Thinking / reasoning text; streamed pieces merge (see [`DeltaText::is_delta`]).
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
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[cfg_attr(feature = "ts", ts(rename = "DeltaTextBody"))]
pub struct DeltaText {
    /// ISO timestamp of the line that produced the entry.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub ts: Ts,
    /// The text.
    pub text: String,
    /// `delta` when the parser gave a boolean. Any other `delta` value is kept as it came among
    /// the extra fields; [`DeltaText::is_delta`] reads either.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub delta: Option<bool>,
    /// Extra plain-JSON fields the parser returned, and its key order.
    #[serde(flatten)]
    pub extra: Extra,
}

impl DeltaText {
    /// Whether this is a streamed piece: its `delta` is JavaScript-truthy (`true`, a non-zero
    /// number, a non-empty string, an array or object), as Paperclip tests it. Consecutive
    /// pieces of one kind merge (SPEC §5).
    pub fn is_delta(&self) -> bool {
        self.delta == Some(true) || self.extra.get("delta").is_some_and(js_truthy)
    }
}

/// JavaScript's `Boolean(value)` for a JSON value. JSON has no `NaN`, `undefined` or `-0`
/// distinct from `0`.
fn js_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

/// Body of `user`, `stderr`, `system` and `stdout` entries.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[cfg_attr(feature = "ts", ts(rename = "TextBody"))]
pub struct Text {
    /// ISO timestamp of the line or chunk that produced the entry.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub ts: Ts,
    /// The text.
    // A line as it came is a slice of the chunk the builder retains ([`EntryText`]).
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub text: EntryText,
    /// Extra plain-JSON fields the parser returned, and its key order.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Body of `tool_call` entries.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", ts(rename = "ToolCallBody"))]
pub struct ToolCall {
    /// ISO timestamp.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub ts: Ts,
    /// Tool name, e.g. `shell` or `read`.
    pub name: String,
    /// The tool's input: any JSON value, `None` when the parser left it out (or `undefined`).
    // Kept as its JSON text ([`RawJson`]): a parsed value costs about ten times as much.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present_raw"
    )]
    #[cfg_attr(feature = "ts", ts(optional, type = "JsonValue"))]
    pub input: Option<RawJson>,
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
    /// Extra plain-JSON fields the parser returned, and its key order.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Body of `tool_result` entries.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", ts(rename = "ToolResultBody"))]
pub struct ToolResult {
    /// ISO timestamp.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub ts: Ts,
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
    /// Extra plain-JSON fields the parser returned, and its key order.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Body of `init` entries.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", ts(rename = "InitBody"))]
pub struct Init {
    /// ISO timestamp.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub ts: Ts,
    /// The model the agent runs.
    pub model: String,
    /// The agent's session id.
    pub session_id: String,
    /// Extra plain-JSON fields the parser returned, and its key order.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Body of `result` entries.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", ts(rename = "ResultBody"))]
pub struct RunResult {
    /// ISO timestamp.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub ts: Ts,
    /// The turn's final text.
    pub text: String,
    /// Usage, cost and outcome: the entry's keys after `text`.
    #[serde(flatten)]
    pub info: ResultInfo,
    /// Extra plain-JSON fields the parser returned, and its key order.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Usage, cost and outcome of a turn: a `result` entry's fields after its text, and what a
/// timeline `result` item carries (`parsebox_timeline`).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResultInfo {
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
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", ts(rename = "DiffBody"))]
pub struct Diff {
    /// ISO timestamp.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub ts: Ts,
    /// What this diff line is.
    pub change_type: DiffChangeType,
    /// The line's text.
    pub text: String,
    /// Extra plain-JSON fields the parser returned, and its key order.
    #[serde(flatten)]
    pub extra: Extra,
}

impl TranscriptEntry {
    /// A `stdout` entry: what the generic parser makes of a line.
    pub fn stdout(ts: &str, text: &str) -> Self {
        Self::Stdout(Text {
            ts: ts.into(),
            text: text.into(),
            extra: Extra::new(),
        })
    }

    /// A `stderr` entry.
    pub fn stderr(ts: &str, text: &str) -> Self {
        Self::Stderr(Text {
            ts: ts.into(),
            text: text.into(),
            extra: Extra::new(),
        })
    }

    /// A `system` entry.
    pub fn system(ts: &str, text: &str) -> Self {
        Self::System(Text {
            ts: ts.into(),
            text: text.into(),
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

    /// The entry's timestamp, as the shared string it is ([`Ts`]).
    pub fn ts_shared(&self) -> &Ts {
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

    /// Makes the entry's timestamp share `ts`'s string when the two are equal ([`Ts::share`]):
    /// the builder gives the entries a chunk's lines make the chunk's one copy.
    pub fn share_ts(&mut self, ts: &Ts) {
        let own = match self {
            Self::Assistant(b) | Self::Thinking(b) => &mut b.ts,
            Self::User(b) | Self::Stderr(b) | Self::System(b) | Self::Stdout(b) => &mut b.ts,
            Self::ToolCall(b) => &mut b.ts,
            Self::ToolResult(b) => &mut b.ts,
            Self::Init(b) => &mut b.ts,
            Self::Result(b) => &mut b.ts,
            Self::Diff(b) => &mut b.ts,
        };
        own.share(ts);
    }

    /// The entry's timestamp.
    pub fn ts(&self) -> &str {
        self.ts_shared()
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

    /// The extra fields and key order of the entry.
    pub fn extra(&self) -> &Extra {
        match self {
            Self::Assistant(b) | Self::Thinking(b) => &b.extra,
            Self::User(b) | Self::Stderr(b) | Self::System(b) | Self::Stdout(b) => &b.extra,
            Self::ToolCall(b) => &b.extra,
            Self::ToolResult(b) => &b.extra,
            Self::Init(b) => &b.extra,
            Self::Result(b) => &b.extra,
            Self::Diff(b) => &b.extra,
        }
    }

    /// Replaces the extra fields and key order (validation sets what it sorted out).
    pub(crate) fn set_extra(&mut self, extra: Extra) {
        let slot = match self {
            Self::Assistant(b) | Self::Thinking(b) => &mut b.extra,
            Self::User(b) | Self::Stderr(b) | Self::System(b) | Self::Stdout(b) => &mut b.extra,
            Self::ToolCall(b) => &mut b.extra,
            Self::ToolResult(b) => &mut b.extra,
            Self::Init(b) => &mut b.extra,
            Self::Result(b) => &mut b.extra,
            Self::Diff(b) => &mut b.extra,
        };
        *slot = extra;
    }

    /// The value of each slot of the kind's table (`None` for an absent optional field).
    fn slot_values(&self) -> [Option<Field<'_>>; MAX_KEYS] {
        use Field::{Bool, Num, Raw, Str, Strs};
        let kind = Some(Str(self.kind()));
        let given: &[Option<Field<'_>>] = match self {
            Self::Assistant(b) | Self::Thinking(b) => &[
                kind,
                Some(Str(&b.ts)),
                Some(Str(&b.text)),
                b.delta.map(Bool),
            ],
            Self::User(b) | Self::Stderr(b) | Self::System(b) | Self::Stdout(b) => {
                &[kind, Some(Str(&b.ts)), Some(Str(&b.text))]
            }
            Self::ToolCall(b) => &[
                kind,
                Some(Str(&b.ts)),
                Some(Str(&b.name)),
                b.input.as_ref().map(Raw),
                b.tool_use_id.as_deref().map(Str),
                b.invocation_id.as_deref().map(Str),
                b.action_request_id.as_deref().map(Str),
            ],
            Self::ToolResult(b) => &[
                kind,
                Some(Str(&b.ts)),
                Some(Str(&b.tool_use_id)),
                Some(Str(&b.content)),
                Some(Bool(b.is_error)),
                b.tool_name.as_deref().map(Str),
            ],
            Self::Init(b) => &[
                kind,
                Some(Str(&b.ts)),
                Some(Str(&b.model)),
                Some(Str(&b.session_id)),
            ],
            Self::Result(b) => &[
                kind,
                Some(Str(&b.ts)),
                Some(Str(&b.text)),
                Some(Num(&b.info.input_tokens)),
                Some(Num(&b.info.output_tokens)),
                Some(Num(&b.info.cached_tokens)),
                Some(Num(&b.info.cost_usd)),
                Some(Str(&b.info.subtype)),
                Some(Bool(b.info.is_error)),
                Some(Strs(&b.info.errors)),
            ],
            Self::Diff(b) => &[
                kind,
                Some(Str(&b.ts)),
                Some(Field::Change(b.change_type)),
                Some(Str(&b.text)),
            ],
        };
        let mut values = [None; MAX_KEYS];
        for (slot, value) in values.iter_mut().zip(given) {
            *slot = *value;
        }
        values
    }
}

/// One typed field's value, borrowed for serialisation.
#[derive(Clone, Copy)]
enum Field<'a> {
    Str(&'a str),
    Bool(bool),
    Num(&'a Number),
    Raw(&'a RawJson),
    Strs(&'a [String]),
    Change(DiffChangeType),
}

impl Serialize for Field<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Str(s) => serializer.serialize_str(s),
            Self::Bool(b) => serializer.serialize_bool(*b),
            Self::Num(n) => n.serialize(serializer),
            Self::Raw(v) => v.serialize(serializer),
            Self::Strs(v) => v.serialize(serializer),
            Self::Change(c) => c.serialize(serializer),
        }
    }
}

/// Writes the entry as an object with its keys in the parser's order: the table keys in the
/// recorded order, each extra field where it sat among them. A typed field set after
/// validation (absent from the recorded order) comes after the parser's keys.
impl Serialize for TranscriptEntry {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Some((_, keys)) = kind_keys(self.kind()) else {
            return Err(serde::ser::Error::custom("entry kind without a key table"));
        };
        let values = self.slot_values();
        let extra = self.extra();
        let mut map = serializer.serialize_map(None)?;
        let mut extras = extra.placed().peekable();
        let mut written = 0u16;
        let mut typed_seen = 0u8;
        for slot in extra.order().slots(keys.len()) {
            while let Some((_, k, v)) = extras.next_if(|(gap, _, _)| *gap <= typed_seen) {
                map.serialize_entry(k, v)?;
            }
            if let (Some((name, _)), Some(Some(value))) = (keys.get(slot), values.get(slot)) {
                map.serialize_entry(name, value)?;
                typed_seen = typed_seen.saturating_add(1);
            }
            written |= 1 << slot;
        }
        for (_, k, v) in extras {
            map.serialize_entry(k, v)?;
        }
        for (slot, ((name, _), value)) in keys.iter().zip(values).enumerate() {
            if let Some(value) = value.filter(|_| written & (1 << slot) == 0) {
                map.serialize_entry(name, &value)?;
            }
        }
        map.end()
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
