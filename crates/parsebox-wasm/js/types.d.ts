// Generated from the Rust types by crates/parsebox-wasm/tests/typescript.rs (ts-rs): do not edit.
// Regenerate with `PARSEBOX_UPDATE_TYPES=1 cargo test -p parsebox-wasm --test typescript`.

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]: JsonValue } | null;

export type TranscriptEntry = { "kind": "assistant" } & DeltaTextBody | { "kind": "thinking" } & DeltaTextBody | { "kind": "user" } & TextBody | { "kind": "stderr" } & TextBody | { "kind": "system" } & TextBody | { "kind": "stdout" } & TextBody | { "kind": "tool_call" } & ToolCallBody | { "kind": "tool_result" } & ToolResultBody | { "kind": "init" } & InitBody | { "kind": "result" } & ResultBody | { "kind": "diff" } & DiffBody;

export type DeltaTextBody = { 
/**
 * ISO timestamp of the line that produced the entry.
 */
ts: string, 
/**
 * The text.
 */
text: string, 
/**
 * `delta` when the parser gave a boolean. Any other `delta` value is kept as it came among
 * the extra fields; [`DeltaText::is_delta`] reads either.
 */
delta?: boolean, [extra: string]: JsonValue | undefined };

export type TextBody = { 
/**
 * ISO timestamp of the line or chunk that produced the entry.
 */
ts: string, 
/**
 * The text.
 */
text: string, [extra: string]: JsonValue | undefined };

export type ToolCallBody = { 
/**
 * ISO timestamp.
 */
ts: string, 
/**
 * Tool name, e.g. `shell` or `read`.
 */
name: string, 
/**
 * The tool's input: any JSON value, `None` when the parser left it out (or `undefined`).
 */
input?: JsonValue, 
/**
 * Pairs the call with its `tool_result`.
 */
toolUseId?: string, 
/**
 * Adapter-specific invocation id.
 */
invocationId?: string, 
/**
 * Adapter-specific action request id.
 */
actionRequestId?: string, [extra: string]: JsonValue | undefined };

export type ToolResultBody = { 
/**
 * ISO timestamp.
 */
ts: string, 
/**
 * The `toolUseId` of the call this answers.
 */
toolUseId: string, 
/**
 * The result text.
 */
content: string, 
/**
 * `true` renders the result as an error.
 */
isError: boolean, 
/**
 * The tool's name, when the parser knows it.
 */
toolName?: string, [extra: string]: JsonValue | undefined };

export type InitBody = { 
/**
 * ISO timestamp.
 */
ts: string, 
/**
 * The model the agent runs.
 */
model: string, 
/**
 * The agent's session id.
 */
sessionId: string, [extra: string]: JsonValue | undefined };

export type ResultBody = { 
/**
 * ISO timestamp.
 */
ts: string, 
/**
 * The turn's final text.
 */
text: string, 
/**
 * Input tokens used.
 */
inputTokens: number, 
/**
 * Output tokens used.
 */
outputTokens: number, 
/**
 * Cached input tokens.
 */
cachedTokens: number, 
/**
 * Cost in US dollars.
 */
costUsd: number, 
/**
 * Result subtype, e.g. `success`.
 */
subtype: string, 
/**
 * `true` when the turn ended in error.
 */
isError: boolean, 
/**
 * Error messages.
 */
errors: Array<string>, [extra: string]: JsonValue | undefined };

export type DiffBody = { 
/**
 * ISO timestamp.
 */
ts: string, 
/**
 * What this diff line is.
 */
changeType: DiffChangeType, 
/**
 * The line's text.
 */
text: string, [extra: string]: JsonValue | undefined };

export type DiffChangeType = "add" | "remove" | "context" | "hunk" | "file_header" | "truncation";

export type FailureCode = "all_entries_invalid" | "bad_return" | "budget_exceeded" | "deadline" | "engine_fault" | "line_too_long" | "memory_exceeded" | "realm_unavailable" | "threw" | "worker_fault";

export type LineFailure = { 
/**
 * The stable reason.
 */
code: FailureCode, 
/**
 * A human-readable explanation.
 */
message: string, 
/**
 * For `threw`: the thrown value as Paperclip's transcript words it (the `Error`'s
 * message, the thrown string, else the value as JSON); absent when that gives nothing
 * (a thrown `undefined`).
 */
thrown?: string, };

export type DroppedEntry = { 
/**
 * Why, as a stable code (`unknown_kind`, `too_many_entries`, …): the key diagnostics'
 * `droppedEntries` counts it under.
 */
code: string, 
/**
 * Why, as a sentence.
 */
message: string, 
/**
 * The start of the entry's JSON text as the parser returned it; absent without previews.
 */
entry?: string, 
/**
 * Characters in the entry's whole JSON text (more than `entry` holds when it was cut);
 * absent without previews.
 */
entryChars?: number, };

export type FailedLineEntry = "parseError" | "generic";

export type RunLogChunk = { 
/**
 * When the chunk was produced (ISO timestamp).
 */
ts: string, 
/**
 * Which stream it came from.
 */
stream: RunLogStream, 
/**
 * The text. A chunk may end (or start) in the middle of a line.
 */
chunk: string, 
/**
 * Sequence number, when the server assigned one.
 */
seq?: number, };

export type BuilderCounts = { 
/**
 * Chunks retained now (the window).
 */
retainedChunks: number, 
/**
 * UTF-8 bytes of the retained chunks' text.
 */
retainedBytes: number, 
/**
 * Chunks dropped from the front of the window (`maxChunks`, `maxRetainedBytes`).
 */
droppedChunks: number, 
/**
 * Entries dropped from the front with them.
 */
droppedEntries: number, 
/**
 * Pushed chunks dropped as duplicates.
 */
duplicateChunks: number, 
/**
 * Slices that rebuilds went on with after their first: a rebuild past its time slice
 * ([`TranscriptBuilder::rebuild_within`]) goes on in later calls.
 */
rebuildSlices: number, 
/**
 * Bytes the transcript really holds, as its memory budget counts them: what its allocator
 * holds for its entries, timeline, retained chunks, indexes and the answers waiting for
 * it. The live core measures it ([`LineParser::has_room`] is where its budget acts); a
 * builder that nobody measures says 0.
 */
heldBytes: number, 
/**
 * What the memory budget counts: [`held_bytes`](Self::held_bytes), and what the frozen
 * prefix's entries ([`TranscriptOptions::compact_final`]) would hold again as live ones
 * (a rebuild parses them into the live form), measured at the allocator as they froze.
 * A transcript takes in no more than it could hold live, so a rebuild or a read of the
 * whole of it fits where it did before entries were kept compactly. A builder that
 * nobody measures says 0.
 */
budgetBytes: number, 
/**
 * Lines shown with the generic entry because the transcript's memory budget had no room
 * for what their parser made of them ([`LineParser::has_room`]).
 */
overBudgetLines: number, };

export type RunLogStream = "stdout" | "stderr" | "system";

export type AdapterState = "generic" | "loading" | "ready" | "failed" | "builtin";

export type RegistryStatus = { 
/**
 * The adapter type, e.g. `hermes_local`.
 */
adapterType: string, 
/**
 * Lifecycle state.
 */
state: AdapterState, 
/**
 * Why the type is `failed` (or `generic` after the loader said it has no parser).
 */
reason: string | null, 
/**
 * Why the type is `failed` (or `generic` because the loader has no parser for it: code
 * `no_parser`), as data (`reason` says the same as a sentence), else null.
 */
error: StatusError | null, 
/**
 * Which export answers lines when `ready`, as the engine reported it when it started.
 */
entryPoint: "createStdoutParser" | "parseStdoutLine" | null, 
/**
 * How the parser's module is written and what it exports, as its engine loaded it (null
 * for a built-in parser, and before the engine started).
 */
module: ModuleShape | null, 
/**
 * Declared contract version (`paperclip.adapterUiParser`), when known.
 */
contractVersion: string | null, 
/**
 * Where the type's engine runs, when it has one: `inline` (in the page's thread),
 * `worker` (a Web Worker the host can end at a deadline) or `builtin`.
 */
placement: Placement | null, 
/**
 * Where the type's lines are answered: in a Worker when its engine runs in one, in the
 * page's thread otherwise (the generic parser, a built-in, an inline engine).
 */
host: LineHost, 
/**
 * Why the type's engine runs in a Worker, when it does.
 */
hostReason: string | null, 
/**
 * Bumped whenever the type's parser is replaced (new source, reload, builtin, failure).
 */
generation: number, 
/**
 * A built-in parser is registered for the type: it answers when `state` is `builtin`, and
 * lies beneath an external parser otherwise (answering again when that one fails, finds no
 * parser, or is unregistered).
 */
hasBuiltin: boolean, 
/**
 * An external parser (a registered or loaded source) answers, is loading, or failed or was
 * missing (its failure kept in `error`): the layer `unregister` removes first.
 */
hasExternal: boolean, };

export type ModuleShape = { 
/**
 * `esm` (`export` statements) or `commonjs` (`module.exports`, `exports.x`).
 */
format: "esm" | "commonjs", 
/**
 * The contract exports found, in contract order (`createStdoutParser`, then
 * `parseStdoutLine`); never empty.
 */
exports: Array<"createStdoutParser" | "parseStdoutLine">, 
/**
 * An ES module's other export names, in source order (`default` for `export default`):
 * Paperclip ignores them. Empty for CommonJS.
 */
otherExports: Array<string>, };

export type Placement = "inline" | "worker" | "builtin";

export type LineHost = "inline" | "worker";

export type StatusError = { 
/**
 * A sandbox load code (`syntax_error`, `imports`, `no_export`, `init_threw`, …), or one of
 * the host's own: `unsupported_contract_version`, `loader_failed` (the source could not be
 * fetched), `no_parser` (the loader says the type has none: the type is `generic`),
 * `engine_fault` (the engine trapped or panicked), `run_start_failed`.
 */
code: LoadErrorCode | "unsupported_contract_version" | "loader_failed" | "no_parser" | "run_start_failed", 
/**
 * A human-readable explanation.
 */
message: string, 
/**
 * The 1-based source line, when the error has a position.
 */
line: number | null, 
/**
 * The 1-based source column, when the error has a position.
 */
column: number | null, };

export type LoadErrorCode = "bad_factory" | "engine_fault" | "imports" | "init_budget_exceeded" | "init_memory_exceeded" | "init_threw" | "no_export" | "syntax_error" | "too_large" | "top_level_await" | "unsafe_regex" | "unsupported_module";

export type CoreDiagnostics = { 
/**
 * Lines settled (by any parser, fallbacks included). Replayed lines are not counted.
 */
linesParsed: number, 
/**
 * Lines answered by the adapter's own parser without falling back.
 */
linesByParser: number, 
/**
 * Lines that fell back to the generic entry, by [`FailureCode`](parsebox_transcript::FailureCode) name.
 */
fallbacks: Partial<Record<FailureCode, number>>, 
/**
 * Entries dropped by validation, by [`Rejection::code`](parsebox_transcript::Rejection::code).
 */
droppedEntries: { [key in string]: number }, 
/**
 * Entries delivered.
 */
entries: number, 
/**
 * The last failure (load, line or engine) as a sentence.
 */
lastError: string | null, 
/**
 * The first 5 lines that fell back (`FALLBACK_LINES_KEPT`), each with its sentence: which
 * lines a viewer or the command line can point at, where `fallbacks` only counts them.
 */
fallbackLines: Array<FallbackLine>, 
/**
 * Runs created (the default run included).
 */
runsCreated: number, 
/**
 * Time the last successful load took (compile and trial evaluation), in milliseconds.
 */
loadMs: number | null, 
/**
 * What the host did around the parser.
 */
host: HostCounters, };

export type FallbackLine = { 
/**
 * The line's timestamp, as it was parsed.
 */
ts: string, 
/**
 * The line's first 120 characters (`FALLBACK_LINE_CHARS`; the whole line when shorter).
 */
line: string, 
/**
 * The line's length in characters (Unicode scalar values).
 */
lineChars: number, 
/**
 * Why it fell back: its failure code, a colon and the sentence (`lastError`'s form).
 */
error: string, };

export type HostCounters = { 
/**
 * Engines started again after a death or a deadline (placement moves not included).
 */
respawns: number, 
/**
 * Engines ended because a line, a start or a replay ran past its deadline.
 */
deadlineKills: number, 
/**
 * Of `deadlineKills`, those of a Worker that batched its answers and had several lines:
 * which line it was stuck on was not known, so no line was failed, and the type's
 * Workers since answer line by line and ran those lines again.
 */
unattributedKills: number, 
/**
 * Of `deadlineKills`, those on a line's first run past the deadline: the line was not
 * failed but ran once more on a fresh engine (a stalled machine is not the parser's
 * fault); it fails only if that engine is ended on it too.
 */
deadlineRetries: number, 
/**
 * Engines that died on their own (trap, out of memory, worker error).
 */
engineFaults: number, 
/**
 * Journal lines replayed into a fresh engine and answered there.
 */
replayedLines: number, 
/**
 * Runs whose history was dropped (journal over its cap, a replay given up, or the type's
 * replay allowance spent by repeated recoveries): a later replay cannot bring their parser
 * state back exactly. Also counted when an engine could not restore a run's parser state
 * after a line left its realm unusable (replaying the run's earlier lines would not fit
 * its replay budget): the parser started over without them.
 */
stateLost: number, 
/**
 * Moves of a type from an inline engine to a Worker engine.
 */
placementMoves: number, 
/**
 * Calls into an inline engine that took longer than their lines' budget by the host's
 * clock (whatever the engine's own budget saw), less the realm work the engine reported
 * (a new run's realm, a rebuild after a failed line).
 */
clockOverruns: number, 
/**
 * Calls of the page (a push, a rebuild) that spent more than `callBudgetMs` in the type's
 * inline engine, summed over their lines.
 */
callOverruns: number, 
/**
 * Lines shown provisionally and settled later ([`Command::LateAnswer`](crate::Command::LateAnswer)).
 */
lateAnswers: number, 
/**
 * Answers ignored: from an ended engine, for a dropped run, out of order or duplicated.
 */
staleAnswers: number, 
/**
 * Lines sent to an engine and not settled yet.
 */
linesPending: number, 
/**
 * Lines answered at once with what the parser answered for the same line reached by the
 * same history (a re-render's fresh run re-parsing the log), instead of generically.
 */
memoAnswers: number, 
/**
 * Bytes this type's transcripts hold now, as their budget counts them
 * (`TranscriptBuilder.counts().budgetBytes`, summed).
 */
transcriptBytes: number, 
/**
 * Lines shown with the generic entry because their entries would have taken a
 * transcript past its budget (`maxTranscriptBytes`, or the registry's
 * `maxTranscriptBytesTotal`).
 */
overBudgetLines: number, 
/**
 * Chunks a transcript refused (`ParseboxMemoryError`): they did not fit its budget.
 */
refusedChunks: number, 
/**
 * Times the type's engine was ended while idle to make room for another type's
 * (`maxLiveEngines`): its next line started it again, replaying its runs' history.
 */
parked: number, 
/**
 * Engines started beside the type's engine, each in a Worker, to spread a long backlog of
 * its stateless lines (`maxWorkers`).
 */
spreadStarts: number, };

export type TimelineItem = { 
/**
 * Stable id: where the item's first entry came from, `e` and the run's line (or
 * stderr/system chunk) number that made it, e.g. `"e12"`, with `.<nth>` for that line's
 * second and later entries, e.g. `"e12.1"`.
 */
id: string, 
/**
 * What the item is; decides which of the optional fields are present.
 */
type: TimelineItemType, 
/**
 * ISO timestamp of the item's first entry (the entry's own string, shared).
 */
timestamp: string, 
/**
 * The text of `user`, `assistant`, `thinking`, `system`, `stderr`, `stdout` and `result`
 * items. A line shown as it came shares its text with its entry (and the chunk it came in):
 * a plain run's timeline holds no copy of its lines.
 */
content?: string, 
/**
 * The tool card of `tool_call` and `tool_result` items.
 */
toolCall?: ToolCallData, 
/**
 * The lines of a `diff` item (diff lines that follow no tool call).
 */
diff?: Array<DiffLine>, 
/**
 * Model and session of an `init` item.
 */
init?: InitInfo, 
/**
 * Usage, cost and errors of a `result` item.
 */
result?: ResultInfo, 
/**
 * The item starts a sequence: it is the first item, or a `user` item comes before it.
 * `user` items themselves have `isFirst` and `isLast` both `true` (no connector).
 */
isFirst: boolean, 
/**
 * The item ends a sequence: it is the last item, or a `user` item comes after it.
 */
isLast: boolean, 
/**
 * The transcript indices of the entries this item shows, ascending. Every entry of the
 * transcript is in exactly one item; a tool card's entries need not be adjacent (its result
 * may come after other items).
 */
entries: Array<number>, };

export type EntriesMoved = { 
/**
 * The first entry index that moved (as it was before the move); every later one moved too.
 */
at: number, 
/**
 * What was added to those indices (less than 0 when the line gave fewer entries).
 */
by: number, };

export type TimelineItemType = "user" | "assistant" | "thinking" | "tool_call" | "tool_result" | "diff" | "init" | "result" | "system" | "stderr" | "stdout";

export type ToolCallData = { 
/**
 * The call's `toolUseId` (for an orphan result, the result's), when it has a non-empty one.
 */
toolCallId?: string, 
/**
 * What sort of tool it is, from its name ([`tool_kind`](crate::tool_kind)).
 */
kind: ToolKind, 
/**
 * The tool's name as the parser gave it (an orphan result's `toolName`, or `""`).
 */
title: string, 
/**
 * Where the call stands.
 */
status: ToolStatus, 
/**
 * The call's `input`, when it had one.
 */
rawInput?: JsonValue, 
/**
 * Results and diff lines, in transcript order.
 */
content: Array<ToolContent>, 
/**
 * File paths named by the input (`file_path`, `path`, `paths`, …), when there are any.
 */
locations?: Array<ToolLocation>, };

export type ToolKind = "read" | "write" | "edit" | "shell" | "search" | "fetch" | "think" | "other";

export type ToolStatus = "pending" | "completed" | "failed" | "unanswered";

export type ToolContent = { "type": "content" } & ToolOutput | { "type": "diff" } & DiffLine;

export type ToolOutput = { 
/**
 * The result's `content`.
 */
text: string, 
/**
 * The result's `isError`.
 */
isError: boolean, };

export type DiffLine = { 
/**
 * What the line is (added, removed, context, hunk header, …).
 */
changeType: DiffChangeType, 
/**
 * The line's text.
 */
text: string, };

export type ToolLocation = { 
/**
 * The path as the input gave it.
 */
path: string, };

export type InitInfo = { 
/**
 * The model the agent runs.
 */
model: string, 
/**
 * The agent's session id.
 */
sessionId: string, };

export type ResultInfo = { 
/**
 * Input tokens used.
 */
inputTokens: number, 
/**
 * Output tokens used.
 */
outputTokens: number, 
/**
 * Cached input tokens.
 */
cachedTokens: number, 
/**
 * Cost in US dollars.
 */
costUsd: number, 
/**
 * Result subtype, e.g. `success`.
 */
subtype: string, 
/**
 * `true` when the turn ended in error.
 */
isError: boolean, 
/**
 * Error messages.
 */
errors: Array<string>, };
