// Types of `parsebox/paperclip`: the functions of Paperclip UI's dynamic-loader.ts and
// transcript.ts, on one shared ParserRegistry.
import type { AdapterParser, ParserRegistry, TranscriptEntry } from "./index.js";
import type { RunLogChunk } from "./parsebox_wasm.js";

export type { RunLogChunk, TranscriptEntry };

/** Paperclip's `StdoutLineParser`. */
export type StdoutLineParser = (line: string, ts: string) => TranscriptEntry[];

/** Paperclip's `TranscriptParserSource`: a module's stateless function and, optionally, its factory. */
export interface TranscriptParserSource {
  parseStdoutLine: (line: string, ts: string) => TranscriptEntry[];
  createStdoutParser?: () => { parseLine(line: string, ts: string): TranscriptEntry[]; reset(): void };
}

/** Paperclip's `buildTranscript` options. */
export interface TranscriptBuildOptions {
  /** Mask user names in home paths, as Paperclip's `censorUsernameInLogs`. */
  censorUsernameInLogs?: boolean;
}

/**
 * Makes `registry` the one the Paperclip functions use. Call it once at start-up, after
 * `init()`, to choose its options; otherwise one with default options is made on first use.
 */
export declare function usePaperclipRegistry(registry: ParserRegistry): void;
/** The registry the Paperclip functions share (made with default options on first use). */
export declare function paperclipRegistry(): ParserRegistry;
/** dynamic-loader.ts: called when a parser becomes ready or answers lines late. */
export declare function setDynamicParserResultNotifier(fn: (() => void) | null): void;
/**
 * dynamic-loader.ts: loads `type`'s `ui-parser.js` into its sandbox (over the type's built-in, if
 * any); resolves to its parser source once ready, or `null` when there is none or it failed.
 */
export declare function loadDynamicParser(adapterType: string): Promise<AdapterParser | null>;
/** dynamic-loader.ts: drops `type`'s sandboxed parser; returns whether one was ready. */
export declare function invalidateDynamicParser(adapterType: string): boolean;
/** `type`'s parser source, stable per parser generation; its functions work detached. */
export declare function parserSource(adapterType: string): AdapterParser;
/**
 * transcript.ts: the transcript of `chunks`, as Paperclip's `buildTranscript` gives it, for a
 * sandboxed parser source or a trusted one (run as a built-in). A re-render whose chunks begin with
 * the same chunk objects parses only the new ones.
 */
export declare function buildTranscript(
  chunks: readonly RunLogChunk[],
  parserSource: StdoutLineParser | TranscriptParserSource | AdapterParser,
  opts?: TranscriptBuildOptions,
): TranscriptEntry[];
