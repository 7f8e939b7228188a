// Types of `parsebox/react`: a live run's transcript as React state.
import type { ParserRegistry, TranscriptEntry } from "./index.js";
import type { RunLogChunk } from "./parsebox_wasm.js";

/** Options of `useTranscript`. */
export interface UseTranscriptOptions {
  /** The registry to parse with (default: the one `parsebox/paperclip` shares). */
  registry?: ParserRegistry;
  /** Mask user names in home paths, as Paperclip's `censorUsernameInLogs`. */
  censorUsernameInLogs?: boolean;
}

/**
 * The transcript of `chunks` (the run's chunk list so far) for `adapterType`, as Paperclip's
 * `buildTranscript` gives it. A render whose list begins with the same chunk objects parses only
 * the new ones; the component renders again when a Worker's answers arrive (batched per frame) or
 * the type's parser becomes ready.
 */
export declare function useTranscript(chunks: readonly RunLogChunk[], adapterType: string, options?: UseTranscriptOptions): TranscriptEntry[];
