// Types of the parsebox package. The data shapes (entries, chunks, failure codes, the core's
// status and counters, timeline items) are generated from the Rust types (types.d.ts, embedded in
// parsebox_wasm.d.ts); the classes and what the JS host adds to those shapes are declared here.
import type {
  BuilderCounts,
  DroppedEntry,
  EntriesMoved,
  FailedLineEntry,
  FailureCode,
  LineFailure,
  CoreDiagnostics,
  RegistryStatus,
  RunLogChunk,
  TimelineItem,
  TranscriptEntry,
} from "./parsebox_wasm.js";

export type {
  BuilderCounts,
  DroppedEntry,
  EntriesMoved,
  FailedLineEntry,
  Placement,
  LineHost,
  AdapterState,
  DeltaTextBody,
  HostCounters,
  FallbackLine,
  LineFailure,
  ModuleShape,
  LoadErrorCode,
  StatusError,
  DiffBody,
  DiffChangeType,
  FailureCode,
  InitBody,
  JsonValue,
  CoreDiagnostics,
  RegistryStatus,
  ResultBody,
  RunLogChunk,
  RunLogStream,
  TextBody,
  ToolCallBody,
  ToolResultBody,
  TranscriptEntry,
  TimelineItem,
  TimelineItemType,
  ToolCallData,
  ToolKind,
  ToolStatus,
  ToolContent,
  ToolOutput,
  DiffLine,
  ToolLocation,
  InitInfo,
  ResultInfo,
} from "./parsebox_wasm.js";

/** The entry of one `kind`. */
export type EntryOfKind<K extends TranscriptEntry["kind"]> = Extract<TranscriptEntry, { kind: K }>;
/** Assistant message text; `delta: true` pieces merge with the previous delta. */
export type AssistantEntry = EntryOfKind<"assistant">;
/** Thinking / reasoning text; `delta: true` pieces merge with the previous delta. */
export type ThinkingEntry = EntryOfKind<"thinking">;
/** A user message. */
export type UserEntry = EntryOfKind<"user">;
/** A stderr chunk, or an error line. */
export type StderrEntry = EntryOfKind<"stderr">;
/** A system or adapter message. */
export type SystemEntry = EntryOfKind<"system">;
/** Raw stdout: the generic parser's output and every fallback. */
export type StdoutEntry = EntryOfKind<"stdout">;
/** A tool invocation. */
export type ToolCallEntry = EntryOfKind<"tool_call">;
/** A tool's result, paired with its call by `toolUseId`. */
export type ToolResultEntry = EntryOfKind<"tool_result">;
/** Session start. */
export type InitEntry = EntryOfKind<"init">;
/** End of a turn: text, usage and cost. */
export type ResultEntry = EntryOfKind<"result">;
/** One line of a diff. */
export type DiffEntry = EntryOfKind<"diff">;

/** An adapter type's status (what `status()` and `registerSource()` return). */
export type AdapterStatus = RegistryStatus;

/** Counters for one adapter type, or all of them. */
export interface Diagnostics extends CoreDiagnostics {
  /**
   * Bytes of linear memory held now by the type's engine instances in this thread (each
   * parser has an instance of its own; Worker engines are not counted).
   */
  memoryBytes: number;
}

/** What a `loadSource` hook may answer: the source text, the source with its declared contract version, or null for "this type has no parser". */
export type LoadedSource = string | { source: string; contractVersion?: string | null } | null;

/** Options of a `ParserRegistry`. Every limit names its unit. */
export interface ParserRegistryOptions {
  /**
   * Budget of one line's parser call in the sandbox, in reference milliseconds (default 50):
   * work the engine counts itself (bytecode steps; 70,000 make one reference millisecond,
   * about what the engine runs in a millisecond in Chromium or Node on a current desktop),
   * not time. The same line therefore gets the same outcome on every machine, under any
   * load and in every browser. A line past it falls back alone (`budget_exceeded`).
   */
  lineBudgetMs?: number;
  /**
   * Budget of module evaluation and `createStdoutParser()`, in reference milliseconds (work, as
   * `lineBudgetMs`; default 200). An initialisation the clock backstop alone stopped is tried
   * once more on a fresh realm before the load fails (`init_budget_exceeded`).
   */
  initBudgetMs?: number;
  /** Largest parser source accepted, in bytes (default 50 KB). */
  maxSourceBytes?: number;
  /** Longest line handed to a parser, in bytes; longer lines get the generic entry. */
  maxLineBytes?: number;
  /**
   * Where sandboxed parsers run. `"worker"` (the default where Workers exist): every parser in
   * a Web Worker with a hard deadline per line, so none can block the page; lines show the
   * generic entry until their answer arrives (`onUpdate`, `onChange`). `"inline"`: in this
   * thread, synchronous answers (Node's only choice); a line whose engine's work stops moving
   * for `hardDeadlineMs` (one long native step) is stopped by the engine itself.
   * `"auto"`: the default said out loud: `"worker"` where Workers exist, else `"inline"`.
   */
  host?: "inline" | "worker" | "auto";
  /**
   * Wall-clock backstop of one line, in milliseconds (default 1000): for what the engine
   * cannot count (one long native step, such as a regex or a huge `replace`). In the worker
   * host the worker is terminated past it and a new worker replays the run's earlier lines;
   * an inline engine stops the line at its next count past it. Either way the line then runs
   * once more, alone, on the fresh start (a stalled machine or browser is not the parser's
   * fault), and falls back only if the backstop stops it again
   * (`diagnostics().host.deadlineRetries` counts the second chances). The engine's own work before a line (a new run's realm,
   * or the rebuild and replay after a failed line) is not the line's time: the 10 s start
   * deadline bounds it, as it bounds the same work when the engine starts.
   */
  hardDeadlineMs?: number;
  /**
   * Most time one call (a `push`, `finish`, `rebuild` or `parseLine`) may spend in one type's
   * parser in this thread, summed over its lines, in milliseconds (default 100): a chunk of
   * lines each just under `lineBudgetMs` is caught here. Past it `diagnostics().host.callOverruns`
   * counts it (an inline engine cannot be moved off the thread: choose `"worker"` for that).
   */
  callBudgetMs?: number;
  /**
   * Longest slice of a `TranscriptBuilder.rebuild()` on the page's thread, in milliseconds
   * (default 8 where there are Web Workers, i.e. frames to wait for; elsewhere a rebuild runs
   * whole). Past it the rest goes on in later frames, delivered through `onUpdate`.
   */
  rebuildSliceMs?: number;
  /** Most entries one line may produce. */
  maxEntriesPerLine?: number;
  /** Longest string in an entry, in UTF-8 bytes. */
  maxStringBytes?: number;
  /**
   * Most linear memory one parser's engine instance may grow to, in bytes (default 128 MiB,
   * four times what the largest of the project's real-shaped parsers reaches over 20,000 lines;
   * from 32 MiB to 4 GiB). A line that takes it past fails alone as `memory_exceeded`, with
   * the figures in `diagnostics().lastError`; the engine starts again and replays the run's
   * earlier lines, once: when it runs out again before a line is answered, their state is what
   * fills it, and the next engine starts without them (counted in
   * `diagnostics().host.stateLost`). Every other type carries on.
   */
  maxMemoryBytes?: number;
  /**
   * Most bytes all this registry's transcripts may hold together (default 512 MiB, at most
   * 1 GiB), as their budgets count them (`counts().budgetBytes` of each: the real bytes the
   * shared core's allocator holds for them, and what their frozen entries would hold again as
   * live ones). A transcript gets what the others leave it; `diagnostics(type).host.transcriptBytes`
   * says what each type's transcripts hold. All registries of the page share the core's own
   * room besides (1 GiB of transcripts in all, with 1 GiB kept free for its work): whatever
   * parsers return and however many runs and registries are open, the core never runs out of
   * memory; a transcript past a budget is refused, alone.
   */
  maxTranscriptBytesTotal?: number;
  /**
   * Most parser engines running at once (default 32, at most 1000): each holds a wasm memory,
   * and a browser gives a page room for a limited number (Chromium: about 120). Starting one
   * more first ends the least recently used idle engine of another type; that type stays
   * `ready`, and its next line starts its engine again and replays its runs' earlier lines, so
   * its parser's state comes back (`diagnostics(type).host.parked` counts it). An engine with a
   * line in flight is never ended for room.
   */
  maxLiveEngines?: number;
  /**
   * Most Workers one adapter type's lines may be parsed in at once (default: the machine's
   * logical cores, `navigator.hardwareConcurrency`, at most 4; at most 64). When a finished run
   * is opened, its lines reach the type's Worker far faster than it parses them: each Worker
   * owes at most a quarter second of work at the pace the type's lines have been answered (its
   * first 8,192 lines while that is not known) and the rest wait, handed to whichever Worker
   * answers first. While what waits is more than a second of work, another Worker of the same
   * parser starts, one at a time, up to this many; each ends once nothing waits. Only lines parsed
   * with no instance state move (a module that exports only `parseStdoutLine`, or
   * `adapter(type).parseStdoutLine`); the entries are the same, each in its line's place.
   * `diagnostics(type).host.spreadStarts` counts these Workers. 1: one Worker per type.
   */
  maxWorkers?: number;
  /**
   * Characters of each entry validation drops to keep in the line's `LineUpdate.dropped`
   * (`entry`, the start of its JSON text as the parser returned it; at most 10000), for a
   * report of what a parser returned, such as `npx parsebox check`. Default: none (the code and
   * sentence of each dropped entry are there anyway). With it, every returned entry is written
   * as JSON before it is validated: a cost a page that only renders need not pay.
   */
  droppedPreviewChars?: number;
  /**
   * Fetches an adapter type's parser source in the background. Default: `GET
   * /api/adapters/:type/ui-parser.js` where `fetch` exists; `null` disables loading (types stay
   * generic until `registerSource`). A rejection marks the type failed with its message.
   */
  loadSource?: ((adapterType: string) => LoadedSource | Promise<LoadedSource>) | null;
}

/** A stateful parser instance, as `createStdoutParser()` returns it. Its functions work detached. */
export interface StdoutParser {
  readonly parseLine: (line: string, ts: string) => TranscriptEntry[];
  readonly reset: () => void;
  readonly dispose: () => void;
  /** `dispose()`, for `using`; only where the engine has `Symbol.dispose` (not WebKitGTK 2.50). */
  [Symbol.dispose](): void;
}

/**
 * The shape of Paperclip's `getUIAdapter(type)` parser source: one frozen object per type until
 * its parser changes; its functions work detached.
 */
export interface AdapterParser {
  /** The module's own stateless `parseStdoutLine` (no instance state between lines). */
  readonly parseStdoutLine: (line: string, ts: string) => TranscriptEntry[];
  readonly createStdoutParser: () => StdoutParser;
}

/** Trusted first-party parser functions for `registerBuiltin`. */
export interface BuiltinParser {
  parseStdoutLine?: (line: string, ts: string) => unknown;
  createStdoutParser?: () => { parseLine(line: string, ts: string): unknown; reset?(): void };
}

/** A line answered late by the worker host. */
export interface LineUpdate {
  line: string;
  ts: string;
  /** What the transcript shows for the line now. */
  entries: TranscriptEntry[];
  /**
   * Why the line fell back to the generic entry (its code, sentence and, for `threw`, what was
   * thrown); absent when the parser's answer stands. `diagnostics()` counts these per type.
   */
  failure?: LineFailure;
  /**
   * The entries the parser returned that validation dropped (absent when none was): each one's
   * code and sentence, and with `droppedPreviewChars` the start of what it was. The line's
   * other entries stand; `diagnostics().droppedEntries` counts these per type.
   */
  dropped?: DroppedEntry[];
}

/**
 * Called when an adapter type's status changes (`lines` is null), or — at most once per
 * animation frame — with the lines the worker host answered since (`lines` non-null).
 */
export type ChangeListener = (adapterType: string, status: AdapterStatus, lines: LineUpdate[] | null) => void;

/** The parser registry. See the README for the lifecycle. */
export declare class ParserRegistry {
  constructor(options?: ParserRegistryOptions);
  /**
   * Parses one line synchronously; never throws for parser failures. Lines go to the type's
   * default run, as the parser contract says: one long-lived `createStdoutParser()` instance
   * when the module exports the factory (it takes priority, so its state carries from line to
   * line even when the module also exports `parseStdoutLine`), else the module's
   * `parseStdoutLine`. `adapter(type).parseStdoutLine` is always the stateless function.
   */
  parseLine(adapterType: string, line: string, ts: string): TranscriptEntry[];
  /** Compiles `source` as `adapterType`'s parser now and returns the resulting status. */
  registerSource(adapterType: string, source: string, contractVersion?: string | null): AdapterStatus;
  /**
   * Registers trusted parser functions, called directly. An external parser that answers or is
   * loading stays on top; the built-in lies beneath it and answers when that one fails or is
   * unregistered.
   */
  registerBuiltin(adapterType: string, parser: BuiltinParser): AdapterStatus;
  /** A drop-in for Paperclip's `getUIAdapter(type)` parser source. */
  adapter(adapterType: string): AdapterParser;
  status(adapterType: string): AdapterStatus;
  diagnostics(adapterType?: string): Diagnostics;
  /**
   * Clears a failure and loads `adapterType` again. A type whose built-in answers keeps it
   * answering while the loader is asked for an external parser to lie over it. With
   * `loadSource: null` no loader is asked: a type registered from source starts again from
   * that source, any other type stays as it is.
   */
  reload(adapterType: string): AdapterStatus;
  /**
   * Removes the type's top layer: an external parser gives way to the built-in beneath it
   * (`status.hasBuiltin`); a built-in, or an external parser with nothing beneath, gives way to
   * the generic parser until `reload` or a new registration.
   */
  unregister(adapterType: string): AdapterStatus;
  /**
   * Subscribes to status changes and late answers; returns the unsubscribe function. A listener
   * that throws stops no other: its error is reported as an uncaught error a microtask later.
   */
  onChange(listener: ChangeListener): () => void;
  /** Resolves when nothing is pending: no load, no line waiting for the worker host. */
  idle(): Promise<void>;
  dispose(): void;
  /** `dispose()`, for `using`; only where the engine has `Symbol.dispose` (not WebKitGTK 2.50). */
  [Symbol.dispose](): void;
}

/** Options of a `TranscriptBuilder`. */
export interface TranscriptBuilderOptions<WithTimeline extends boolean = boolean> {
  /** Mask user names in home paths (`/Users/alice` → `/Users/a****`). */
  redactHomePaths?: boolean;
  /**
   * What a line whose parser failed shows: Paperclip's parse-error `result` entry
   * (`"parseError"`, the default, as `buildTranscript` shows it) or the raw line (`"generic"`).
   */
  failedLineEntry?: FailedLineEntry;
  /**
   * Keep the run's timeline beside the transcript (default `true`). With `false`, updates carry
   * no `timeline` and `timeline()` throws.
   */
  timeline?: WithTimeline;
  /**
   * Keep a window of the latest chunks only (a live view's last 200): after a push, the oldest
   * chunks leave with the entries only they made (`update.dropped`). A streamed message still
   * being built is never cut: its chunks stay until it is complete. Entries are those the
   * whole run gives, and timeline ids stay the whole run's ids (items leave once every entry
   * they show has left: a call whose result is in the window keeps its card); `rebuild()`
   * re-parses the window alone. A whole number from 1 up.
   */
  maxChunks?: number;
  /** Like `maxChunks`, by the UTF-8 bytes of the kept chunks' text (the newest chunk always stays). */
  maxRetainedBytes?: number;
  /**
   * Drop a pushed chunk equal to one still kept (same `ts`, `stream` and text; two `seq`s that
   * differ make two chunks): what a live view gets when the stored log and the socket both
   * deliver it. Counted in `counts().duplicateChunks`.
   */
  dropDuplicateChunks?: boolean;
  /**
   * Most bytes this transcript may hold (default 256 MiB, at most 512 MiB), counted as
   * `counts().budgetBytes`: `counts().heldBytes`, the real bytes the core's allocator holds for
   * it (its entries, timeline, kept chunks, indexes, its run's journal and the answers waiting
   * for it), measured as each call runs, and what its final entries, kept compactly, would
   * hold again as live ones (a rebuild parses them into the live form). A chunk is taken in only when every line of it fits as its generic
   * entry (about 140 bytes a line besides its text, in the core); otherwise it is
   * refused with a `ParseboxMemoryError`. A line whose entries would take it past shows the
   * generic entry, its whole text, and a Worker's answer past it is let go of
   * (`counts().overBudgetLines`). The registry's `maxTranscriptBytesTotal` bounds all its
   * transcripts together. A whole number from 1 up.
   */
  maxTranscriptBytes?: number;
}

/**
 * What one update changed in the timeline. Apply `moved`, then re-render `changed`, mount
 * `added`, unmount `removed`; every other item is as it was. An item's place is the order of
 * `entries[0]` (and of its id's line).
 */
export interface TimelineChanges {
  /** Items that were there before and differ now (a result arrived, `isLast` moved, …), whole. */
  changed: TimelineItem[];
  /** New items, whole, in timeline order. */
  added: TimelineItem[];
  /** Ids of items that are gone (entries were replaced from an earlier index). */
  removed: string[];
  /**
   * Entry indices that moved, in order (a late answer gave a line another number of entries
   * than its generic one): in every item the other lists do not name, each index at or past
   * `at` is now `by` more. Those items are not sent again; they are the timeline's last ones
   * (every item before them has all its entries before `at`). Absent when nothing moved.
   */
  moved?: EntriesMoved[];
}

/**
 * What a `push`/`finish` (or a late answer) changed: first `dropped` entries left the front of
 * the window (remove them), then the entries from index `from` on are these; and the
 * timeline's changes (unless the builder was made with `timeline: false`).
 */
export type TranscriptUpdate<WithTimeline extends boolean = true> = {
  dropped: number;
  from: number;
  entries: TranscriptEntry[];
} & (WithTimeline extends false ? unknown : { timeline: TimelineChanges });

/** A run's transcript, built incrementally with Paperclip's `buildTranscript` semantics, and its timeline. */
export declare class TranscriptBuilder<WithTimeline extends boolean = true> {
  constructor(registry: ParserRegistry, adapterType: string, options?: TranscriptBuilderOptions<WithTimeline>);
  /**
   * Appends a chunk; says which entries and timeline items changed. The timeline stops before
   * the first line a Worker has yet to answer and places it when the answer comes (through
   * `onUpdate`), or generic after a frame.
   */
  push(chunk: RunLogChunk): TranscriptUpdate<WithTimeline>;
  /** Ends the run: flushes the partial last line; calls never answered become `unanswered`. */
  finish(): TranscriptUpdate<WithTimeline>;
  /** Turns redaction of home paths on or off without re-parsing (every entry changes when it did). */
  setRedactHomePaths(on: boolean): TranscriptUpdate<WithTimeline>;
  /** What the builder keeps (the window) and has let go of (dropped and duplicate chunks), and the slices rebuilds went on with in later frames. */
  counts(): BuilderCounts;
  /**
   * Re-parses the whole run, e.g. when the adapter's parser became ready; `timeline()` then
   * gives the rebuilt timeline. With `rebuildSliceMs` (the browser's default) it returns what
   * was re-parsed within that slice; the rest arrives through `onUpdate` in later frames.
   */
  rebuild(): TranscriptEntry[];
  entries(): TranscriptEntry[];
  /** The whole timeline so far, in order (throws `ParseboxOptionsError` when made with `timeline: false`). */
  timeline(): TimelineItem[];
  /**
   * Late answers from the worker host changed entries in place, a rebuild in slices went on, or
   * the timeline placed lines it had waited a frame for (at most once per frame). A listener
   * that throws stops no other listener or builder: its error is reported as an uncaught error
   * a microtask later.
   */
  onUpdate(listener: (update: TranscriptUpdate<WithTimeline>) => void): () => void;
  dispose(): void;
  /** `dispose()`, for `using`; only where the engine has `Symbol.dispose` (not WebKitGTK 2.50). */
  [Symbol.dispose](): void;
}

/** Base class of every error parsebox throws (host misuse only). */
export declare class ParseboxError extends Error {}
export declare class ParseboxOptionsError extends ParseboxError {}
export declare class ParseboxDisposedError extends ParseboxError {}
export declare class ParseboxChunkError extends ParseboxError {}
export declare class ParseboxInitError extends ParseboxError {}
/**
 * A registry or builder called from inside one of its own calls (a built-in parser calling
 * `parseLine`, or pushing into its own builder): refused, the object carries on.
 */
export declare class ParseboxReentrancyError extends ParseboxError {}
/**
 * `push` refused a chunk: its transcript holds its `maxTranscriptBytes`, or what the registry's
 * `maxTranscriptBytesTotal` leaves it beside its other transcripts, or the page's transcripts
 * together hold what the core may hold (1 GiB), all in real bytes (counted in
 * `diagnostics(type).host.refusedChunks`). The transcript keeps what it has; dispose
 * transcripts no longer shown, or raise the budget.
 */
export declare class ParseboxMemoryError extends ParseboxError {}
/**
 * The trusted core module stopped: a WebAssembly trap left one of its calls (`cause`). This
 * should not happen (every limit the core has is a budget); if it does, the package starts a
 * fresh core at once: registries and builders made from then on work. Each one made before
 * throws this error from every call (a builder's `entries()` still gives what it held, and
 * `dispose()` works), so the page makes them again and pushes what it still holds; their
 * Workers are ended. The Paperclip functions (`parsebox/paperclip`) make their own registry
 * again when they made it.
 */
export declare class ParseboxCoreError extends ParseboxError {
  readonly cause?: unknown;
}

/** What `init` accepts for each module: a URL, a response, the bytes or a compiled module. */
export type WasmInput = URL | string | Response | Promise<Response> | BufferSource | WebAssembly.Module;
/**
 * Loads the core module (browser, or Node with URLs/bytes), then starts loading the engine
 * module in the background. Resolves when the core is ready: registries answer every line with
 * the generic parser at once, and adapters' parsers stay `loading` until the engine module is
 * compiled (in WebKit, and its code warmed: see `engineReady`), then start by themselves
 * (their `onChange` fires). If the engine module cannot be
 * loaded, sandboxed parsers fail with an `engine_fault` load error that says why; built-in
 * parsers are unaffected. Defaults: `parsebox_wasm_bg.wasm` and `parsebox_engine.wasm` next to
 * `index.js`.
 */
export default function init(input?: WasmInput, engineInput?: WasmInput): Promise<void>;
/**
 * Resolves when the engine module is compiled and its code warmed by a small parser in a Worker
 * (however long that takes: no clock ends the wait; in a browser the warm-up starts as the
 * module compiles and the first Worker engine then takes that Worker; in Node the first call starts a worker thread, which ends
 * after it), so a parser registered from then on loads at full speed (rejects with a `ParseboxInitError` or the download's error when the module cannot be
 * loaded). In WebKit (JavaScriptCore: Safari, every iOS browser), registries wait for the
 * same warm-up before they start parsers (a Worker ended while the module's code is still being
 * compiled can leave that code slow for the rest of the page there); in other browsers parsers
 * start at once, beside the warm-up. This is for a page that wants to wait on purpose (a test,
 * a preload).
 */
export declare function engineReady(): Promise<void>;
/** Synchronous init from the `.wasm` bytes or compiled modules of the core and the engine (Node). */
export declare function initSync(options: { module: BufferSource | WebAssembly.Module; engine: BufferSource | WebAssembly.Module }): void;
