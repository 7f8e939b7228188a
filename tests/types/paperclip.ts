// Type test of `parsebox/paperclip`, as Paperclip's dynamic-loader.ts and transcript.ts use it.
import { ParserRegistry, type TranscriptEntry } from "parsebox";
import { useTranscript } from "parsebox/react";
import { buildTranscript, invalidateDynamicParser, loadDynamicParser, setDynamicParserResultNotifier, usePaperclipRegistry, type RunLogChunk, type TranscriptParserSource } from "parsebox/paperclip";

export async function paperclip(chunks: RunLogChunk[], builtin: TranscriptParserSource): Promise<TranscriptEntry[]> {
  usePaperclipRegistry(new ParserRegistry({ lineBudgetMs: 50 }));
  setDynamicParserResultNotifier(() => undefined);
  setDynamicParserResultNotifier(null);
  const module = await loadDynamicParser("hermes_local");
  const wasReady: boolean = invalidateDynamicParser("hermes_local");
  const fromBuiltin = buildTranscript(chunks, builtin, { censorUsernameInLogs: wasReady });
  const fromFunction = buildTranscript(chunks, (line, ts) => [{ kind: "stdout", ts, text: line }]);
  // @ts-expect-error a chunk's stream is stdout, stderr or system
  buildTranscript([{ ts: "t", stream: "out", chunk: "x" }], builtin);
  // @ts-expect-error the option is censorUsernameInLogs
  buildTranscript(chunks, builtin, { redact: true });
  return module ? [...fromBuiltin, ...fromFunction, ...buildTranscript(chunks, module)] : fromBuiltin;
}

/** A component body's use of the hook (no React types needed to check parsebox's own). */
export function liveEntries(chunks: readonly RunLogChunk[], registry: ParserRegistry): TranscriptEntry[] {
  // @ts-expect-error the adapter type is required
  useTranscript(chunks);
  return useTranscript(chunks, "claude_local", { registry, censorUsernameInLogs: true });
}
