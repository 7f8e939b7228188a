/** Plain JSON data, as entries may carry it (`tool_call.input`, extra fields). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

interface EntryBase {
  /** ISO timestamp of the line (or chunk) that produced the entry. */
  ts: string;
  /** Extra plain-JSON fields a parser returned are kept (the raw view shows them). */
  [extra: string]: JsonValue | undefined;
}

/** Assistant message text; `delta: true` pieces merge with the previous delta. */
export interface AssistantEntry extends EntryBase { kind: "assistant"; text: string; delta?: boolean }
/** Thinking / reasoning text; `delta: true` pieces merge with the previous delta. */
export interface ThinkingEntry extends EntryBase { kind: "thinking"; text: string; delta?: boolean }
/** A user message. */
export interface UserEntry extends EntryBase { kind: "user"; text: string }
/** A stderr chunk, or an error line. */
export interface StderrEntry extends EntryBase { kind: "stderr"; text: string }
/** A system or adapter message. */
export interface SystemEntry extends EntryBase { kind: "system"; text: string }
/** Raw stdout: the generic parser's output and every fallback. */
export interface StdoutEntry extends EntryBase { kind: "stdout"; text: string }
/** A tool invocation. */
export interface ToolCallEntry extends EntryBase {
  kind: "tool_call";
  name: string;
  input: JsonValue;
  toolUseId?: string;
  invocationId?: string;
  actionRequestId?: string;
}
/** A tool's result, paired with its call by `toolUseId`. */
export interface ToolResultEntry extends EntryBase {
  kind: "tool_result";
  toolUseId: string;
  content: string;
  isError: boolean;
  toolName?: string;
}
/** Session start. */
export interface InitEntry extends EntryBase { kind: "init"; model: string; sessionId: string }
/** End of a turn: text, usage and cost. */
export interface ResultEntry extends EntryBase {
  kind: "result";
  text: string;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  costUsd: number;
  subtype: string;
  isError: boolean;
  errors: string[];
}
/** One line of a diff. */
export interface DiffEntry extends EntryBase {
  kind: "diff";
  changeType: "add" | "remove" | "context" | "hunk" | "file_header" | "truncation";
  text: string;
}

/** One rendered item of a run's transcript, discriminated by `kind`. */
export type TranscriptEntry =
  | AssistantEntry
  | ThinkingEntry
  | UserEntry
  | StderrEntry
  | SystemEntry
  | StdoutEntry
  | ToolCallEntry
  | ToolResultEntry
  | InitEntry
  | ResultEntry
  | DiffEntry;

/** Where an adapter type is in its lifecycle. */
export type AdapterState = "generic" | "loading" | "ready" | "failed" | "builtin";

/** An adapter type's status (what `status()` and `registerSource()` return). */
export interface AdapterStatus {
  adapterType: string;
  state: AdapterState;
  /** Why the type failed (or why it is generic), else null. */
  reason: string | null;
  /** Which export answers lines when ready. */
  entryPoint: "createStdoutParser" | "parseStdoutLine" | null;
  /** The declared `paperclip.adapterUiParser` version, else null. */
  contractVersion: string | null;
  /** Where the parser runs: in the page's thread, or in a Worker that can be terminated. */
  host: "inline" | "worker";
  /** Why it runs in the worker host, else null. */
  hostReason: string | null;
}

/** The worker host's counters for a type (or all types). */
export interface WorkerDiagnostics {
  linesParsed: number;
  /** Lines that ran past the hard deadline: the worker was terminated and respawned. */
  deadlineKills: number;
  /** Traps inside the worker (out of memory, a panic). */
  faults: number;
  respawns: number;
  /** Earlier lines replayed into respawned workers to restore parser state. */
  replayedLines: number;
  /** Times a run's history was over its cap, so a respawn could not restore its state. */
  stateLost: number;
  /** Lines sent and not answered yet. */
  pendingLines: number;
}

/** Counters for one adapter type, or all of them. */
export interface Diagnostics {
  linesParsed: number;
  linesByParser: number;
  /** Lines that fell back to the generic parser, by reason (`threw`, `budget_exceeded`, …). */
  fallbacks: Record<string, number>;
  /** Entries dropped by validation, by reason (`unknown_kind`, `missing_field`, …). */
  droppedEntries: Record<string, number>;
  entries: number;
  /** Time the last successful load took, in milliseconds. */
  loadMs: number | null;
  lastError: string | null;
  runsCreated: number;
  /** The worker host's counters, or null when nothing of this type runs there. */
  worker: WorkerDiagnostics | null;
}

/** One chunk of run output, as Paperclip's run-log stream delivers it. */
export interface RunLogChunk {
  ts: string;
  stream: "stdout" | "stderr" | "system";
  chunk: string;
  seq?: number;
}
