// The checks over the lines fed to fresh runs: "no throws, no budget overruns", "every returned
// entry valid", the two determinism checks (a fresh run, and the same run after `reset()`, must
// give the same entries; budget overruns are timing, not behaviour, and are not compared), and
// the report of a line stuck in one native step.
import { BEHAVIOUR_CHECKS, check, plural } from "./report.js";
import { preview } from "./render.js";

/**
 * One line fed to a parser, labelled for the report.
 * @typedef {{ label: string, text: string, ts: string }} Line
 * A parser's answer to one line: its valid entries, or the failure that made it fall back; and
 * the entries validation dropped.
 * @typedef {{ entries?: import("../index.js").TranscriptEntry[], failure?: import("../index.js").LineFailure, dropped: import("../index.js").DroppedEntry[] }} Answer
 */

/** How much of each dropped entry the report shows: the registry keeps this many characters. */
export const PREVIEW_CHARS = 160;

/** Overruns (budget, memory, deadline): reported, never compared between passes. */
const isTiming = (a) => a.failure !== undefined && ["budget_exceeded", "memory_exceeded", "deadline"].includes(a.failure.code);

/** `code: message`, as the native command says a line's failure. */
const said = (f) => `${f.code}: ${f.message}`;

/** Entries in the answers. */
const entryCount = (answers) => answers.reduce((n, a) => n + (a.entries?.length ?? 0), 0);

/** "… and N more", when more than `max` were found. */
const andMore = (details, found, max) => {
  if (found > max) details.push(`… and ${found - max} more`);
};

/** "no throws, no budget overruns" over one set of lines and their answers. */
export function failuresCheck(id, title, lines, answers, max) {
  const entries = entryCount(answers);
  const failed = lines.flatMap((l, i) => (answers[i]?.failure ? [[l, answers[i].failure]] : []));
  const n = lines.length;
  if (failed.length === 0) return check(id, title, "pass", `${n} line${plural(n)} → ${entries} entr${entries === 1 ? "y" : "ies"}; no throws, no budget overruns`);
  /** @type {Map<string, number>} */
  const byCode = new Map();
  for (const [, f] of failed) byCode.set(f.code, (byCode.get(f.code) ?? 0) + 1);
  const codes = [...byCode].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([c, k]) => `${c} ×${k}`);
  const details = failed.slice(0, max).map(([l, f]) => `${l.label}: ${f.code}: ${preview(f.message, 200)}\n${preview(l.text, 100)}`);
  andMore(details, failed.length, max);
  details.push("each failing line falls back to the generic parser (shown as plain stdout)");
  return check(id, title, "fail", `${failed.length} of ${n} line${plural(n)} failed (${codes.join(", ")})`, details);
}

/**
 * A preview of `head`, the start of a text of `chars` characters: the preview the whole text
 * gets (`preview` of it).
 */
function previewOf(head, chars, max) {
  const whole = preview(head, Number.MAX_SAFE_INTEGER);
  const points = [...whole];
  if (points.length <= max && chars === [...head].length) return whole;
  return `${points.slice(0, Math.max(0, max - 1)).join("")}… (${chars} chars)`;
}

/** What a dropped entry was, as the report shows it: the start of its JSON text the registry kept. */
const droppedPreview = (d) => (d.entry !== undefined && d.entryChars !== undefined ? previewOf(d.entry, d.entryChars, PREVIEW_CHARS) : "(not kept: a line's first entries dropped are shown)");

/** "every returned entry valid" over `fed`: `[line, answer]` pairs. */
export function entriesCheck(fed, max) {
  const valid = entryCount(fed.map(([, a]) => a));
  const invalid = fed.flatMap(([l, a]) => a.dropped.map((d) => [l, d]));
  const total = valid + invalid.length;
  if (invalid.length === 0) return check("entries", "entries", "pass", `all ${total} returned entr${total === 1 ? "y is" : "ies are"} valid`);
  const details = invalid.slice(0, max).map(([l, d]) => `${l.label}: ${d.message}\n${droppedPreview(d)}`);
  andMore(details, invalid.length, max);
  details.push("invalid entries are dropped: the UI never renders them");
  return check("entries", "entries", "fail", `${invalid.length} of ${total} returned entries are invalid`, details);
}

/** Whether two answers show the same: the same entries, or the same failure. */
function same(a, b) {
  if (a.failure || b.failure) return a.failure !== undefined && b.failure !== undefined && a.failure.code === b.failure.code && a.failure.message === b.failure.message && a.failure.thrown === b.failure.thrown;
  return JSON.stringify(a.entries) === JSON.stringify(b.entries);
}

/** One pass's answer for a line, shortened for the report. */
const showAnswer = (a) => (a.failure ? `failed (${said(a.failure)})` : preview(JSON.stringify(a.entries), 240));

/** Two passes over `lines` compared: null when they agree, else `[lines differing, details]`. */
function compare(lines, first, second, max) {
  let differing = 0;
  const details = [];
  lines.forEach((line, i) => {
    const [x, y] = [first[i], second[i]];
    if (x === undefined || y === undefined || isTiming(x) || isTiming(y) || same(x, y)) return;
    differing++;
    if (details.length < max) details.push(`${line.label}: ${preview(line.text, 100)}\nfirst:  ${showAnswer(x)}\nsecond: ${showAnswer(y)}`);
  });
  andMore(details, differing, max);
  return differing > 0 ? [differing, details] : null;
}

/**
 * "reset + replay": `again` is the second pass over `lines` (`what`) in the run that gave
 * `first`, after `reset()`, or `{ error }` when `reset()` failed. `stateless`: the parser is
 * driven through `parseStdoutLine`.
 */
export function resetReplayCheck(what, lines, first, again, stateless, max) {
  if ("error" in again) return check("reset_replay", "reset + replay", "fail", `reset() failed: ${again.error}`);
  const differs = compare(lines, first, again.answers, max);
  if (differs === null) return check("reset_replay", "reset + replay", "pass", `${what} again after reset() in the same run gives the same entries`);
  const [n, details] = differs;
  details.push(
    stateless
      ? "parseStdoutLine is called directly for the whole run, so module-level state (counters, buffers) carries over when Paperclip rebuilds the transcript; ids then change on every rebuild. Keep per-run state in createStdoutParser() and clear it in reset()."
      : "reset() does not bring the parser back to its initial state (module-level counters, Math.random() ids or state it forgets to clear), so a rebuilt transcript differs from the first one",
  );
  return check("reset_replay", "reset + replay", "warn", `${what} again after reset() in the same run differs on ${n} line${plural(n)}`, details);
}

/** "determinism": `fresh` is the pass over `lines` (`what`) in a second fresh run, or `{ error }`. */
export function determinismCheck(what, lines, first, fresh, max) {
  if ("error" in fresh) return check("determinism", "determinism", "fail", fresh.error);
  const differs = compare(lines, first, fresh.answers, max);
  if (differs === null) return check("determinism", "determinism", "pass", `two fresh runs over ${what} give the same entries`);
  const [n, details] = differs;
  return check("determinism", "determinism", "fail", `two fresh runs over ${what} disagree on ${n} line${plural(n)}`, details);
}

/**
 * The `unstoppable` check: the parser ran `secs` seconds on the line `label` (`text`, a
 * preview) in one native step, and the check stopped there.
 */
export function unstoppableCheck(label, text, secs, budget) {
  return check(
    "unstoppable",
    "unstoppable line",
    "fail",
    `the parser has run for ${secs} s on ${label} (budget ${budget} ms) and the sandbox cannot interrupt it: check aborted`,
    [
      text,
      "one native operation (a regex, split or replace over a long line, JSON.parse, building a huge string) runs to its end inside this command's engine; in the page the engine stops it at the line's deadline and the line falls back alone, after the page waited that long",
      "bound the work per line: e.g. hand very long lines back as plain stdout before running regexes over them",
    ],
  );
}

/** The behaviour checks not reached when the check stopped, each skipped. */
export function skipTheRest(checks) {
  for (const [id, title] of BEHAVIOUR_CHECKS) if (!checks.some((c) => c.id === id)) checks.push(check(id, title, "skip", "not run: the check was aborted"));
}
