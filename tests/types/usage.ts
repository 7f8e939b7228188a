// Type test: compiled with `tsc --noEmit` against the built package. Each line after an
// expect-error directive must NOT compile; if one does, tsc fails the test.
import init, { engineReady, initSync, ParserRegistry, ParseboxCoreError, ParseboxReentrancyError, TranscriptBuilder, type TranscriptEntry, type AdapterStatus, type FailureCode, type StatusError, type Placement, type TimelineItem, type ToolStatus, type ToolKind, type TimelineChanges } from "parsebox";

export async function usage(): Promise<string[]> {
  await init();
  const waited: Promise<void> = engineReady();
  await waited;
  const registry = new ParserRegistry({ lineBudgetMs: 50, maxSourceBytes: 50_000, loadSource: async (type) => ({ source: `/* ${type} */`, contractVersion: "1.0.0" }) });
  const entries: TranscriptEntry[] = registry.parseLine("hermes", "line", new Date().toISOString());
  const texts: string[] = [];
  for (const e of entries) {
    switch (e.kind) {
      case "tool_call":
        texts.push(e.name);
        break;
      case "tool_result":
        texts.push(e.isError ? `error: ${e.content}` : e.content);
        break;
      case "result":
        texts.push(`${e.inputTokens + e.outputTokens} tokens, $${e.costUsd.toFixed(2)}`);
        break;
      case "diff":
        texts.push(e.changeType);
        break;
      case "init":
        texts.push(e.model);
        break;
      default:
        texts.push(e.text);
    }
  }
  const status: AdapterStatus = registry.status("hermes");
  const state: "generic" | "loading" | "ready" | "failed" | "builtin" = status.state;
  texts.push(state, status.reason ?? "");
  // A started parser's module: its format and the contract exports found, from generated unions.
  const format: "esm" | "commonjs" | undefined = status.module?.format;
  for (const e of status.module?.exports ?? []) texts.push(e === "createStdoutParser" ? "factory" : "function", format ?? "");
  const unsubscribe: () => void = registry.onChange((type, s) => texts.push(type, s.state));
  unsubscribe();
  // A late line says why it fell back, with a code from the generated union.
  registry.onChange((_type, _s, lines) => {
    for (const l of lines ?? []) if (l.failure) texts.push(`${l.ts} ${l.failure.code}: ${l.failure.message}${l.failure.thrown ?? ""}`);
  })();
  // And which entries validation dropped: with previews, the start of each and its length.
  const previewing = new ParserRegistry({ droppedPreviewChars: 160 });
  previewing.onChange((_type, _s, lines) => {
    for (const d of lines?.flatMap((l) => l.dropped ?? []) ?? []) texts.push(`${d.code}: ${d.message}`, d.entry ?? "", String(d.entryChars ?? 0));
  })();
  // @ts-expect-error: a preview is a number of characters
  new ParserRegistry({ droppedPreviewChars: true });
  // A finished run over the machine's cores: how many Workers, and how many took lines.
  const spreading = new ParserRegistry({ maxWorkers: 2 });
  texts.push(String(spreading.diagnostics("hermes").host.spreadStarts));
  // @ts-expect-error: Workers are counted
  new ParserRegistry({ maxWorkers: "all" });
  const builder = new TranscriptBuilder(registry, "hermes", { redactHomePaths: true });
  const update = builder.push({ ts: "t", stream: "stdout", chunk: "x\n" });
  texts.push(String(update.from));
  // A live view's window: how many entries left the front, and what the builder keeps.
  const live = new TranscriptBuilder(registry, "hermes", { maxChunks: 200, maxRetainedBytes: 1 << 20, dropDuplicateChunks: true });
  const moved: number = live.push({ ts: "t", stream: "stdout", chunk: "x\n" }).dropped;
  const kept: number = live.counts().retainedChunks + live.counts().duplicateChunks + moved;
  texts.push(String(kept), String(live.setRedactHomePaths(true).entries.length));
  // @ts-expect-error: a window is a number of chunks
  new TranscriptBuilder(registry, "hermes", { maxChunks: "200" });
  const parser = registry.adapter("hermes").createStdoutParser();
  parser.reset();
  {
    using scoped = new ParserRegistry();
    scoped.diagnostics().fallbacks["threw"];
  }
  // Failure codes are a union generated from the Rust enum.
  const code: FailureCode = "deadline";
  const deadlines: number | undefined = registry.diagnostics("hermes").fallbacks[code];
  texts.push(String(deadlines ?? 0));
  // A failed type's error is data: a code from a generated union, and where in the source.
  if (status.error) texts.push(`${status.error.code} at ${status.error.line ?? "?"}:${status.error.column ?? "?"}`);
  const syntax: StatusError["code"] = "syntax_error";
  texts.push(syntax);
  // @ts-expect-error: not a load error code
  const badCode: StatusError["code"] = "oops";
  // @ts-expect-error: not a failure code
  registry.diagnostics().fallbacks.nope;
  // @ts-expect-error: an entry's extra fields are plain JSON, not functions
  const withFunction: TranscriptEntry = { kind: "stdout", ts: "t", text: "x", render: () => "x" };

  // @ts-expect-error: "banner" is not an entry kind
  const wrongKind: TranscriptEntry = { kind: "banner", ts: "t", text: "x" };
  // @ts-expect-error: a tool_result needs isError
  const missingField: TranscriptEntry = { kind: "tool_result", ts: "t", toolUseId: "1", content: "c" };
  // @ts-expect-error: options carry units in their names
  new ParserRegistry({ lineBudget: 50 });
  // Each parser's engine instance has its own memory cap, in bytes; the status says where it runs.
  new ParserRegistry({ maxMemoryBytes: 256 << 20, host: "auto" });
  const where: Placement | null = registry.status("hermes").placement;
  texts.push(String(where), String(registry.diagnostics().memoryBytes), ParseboxReentrancyError.name);
  // A trap of the core itself is named, with the trap as its cause.
  try {
    builder.push({ ts: "t", stream: "stdout", chunk: "x\n" });
  } catch (e) {
    if (e instanceof ParseboxCoreError) texts.push(String(e.cause));
  }
  // @ts-expect-error: Node's synchronous init needs the engine module too
  initSync({ module: new Uint8Array() });
  // @ts-expect-error: a chunk's stream is stdout, stderr or system
  builder.push({ ts: "t", stream: "video", chunk: "x" });
  // The timeline: tool cards with a status, items keyed by a stable id, updates that name them.
  const changes: TimelineChanges = update.timeline;
  const touched: TimelineItem[] = [...changes.changed, ...changes.added];
  const gone: string[] = changes.removed;
  // Entry index moves (a late answer before them): numbers, absent when nothing moved.
  for (const { at, by } of changes.moved ?? []) texts.push(String(at + by));
  // @ts-expect-error: moved may be absent
  void changes.moved.length;
  for (const item of [...touched, ...builder.timeline()]) {
    texts.push(item.id, item.type, item.timestamp, String(item.isFirst && item.isLast), String(item.entries[0]));
    if (item.toolCall) {
      const status: ToolStatus = item.toolCall.status;
      const kind: ToolKind = item.toolCall.kind;
      texts.push(status, kind, item.toolCall.title, item.toolCall.toolCallId ?? "");
      for (const piece of item.toolCall.content) texts.push(piece.type === "content" ? `${piece.isError}: ${piece.text}` : `${piece.changeType} ${piece.text}`);
    }
    if (item.result) texts.push(String(item.result.costUsd));
  }
  texts.push(...gone, ...builder.finish().timeline.removed);
  builder.onUpdate((late) => texts.push(...late.timeline.added.map((i) => i.id)));
  // @ts-expect-error: "running" is the viewer's word; the status is pending
  const running: ToolStatus = "running";
  // @ts-expect-error: removed items are ids, not items
  const removedItems: TimelineItem[] = changes.removed;
  // Without a timeline, updates carry none.
  const plain = new TranscriptBuilder(registry, "hermes", { timeline: false });
  const plainUpdate = plain.push({ ts: "t", stream: "stdout", chunk: "x\n" });
  texts.push(String(plainUpdate.from));
  // @ts-expect-error: a builder made with timeline: false reports no timeline
  plainUpdate.timeline;
  void wrongKind;
  void missingField;
  void running;
  void removedItems;
  return texts;
}
