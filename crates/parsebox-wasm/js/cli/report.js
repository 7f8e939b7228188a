// `parsebox check`'s report: a list of checks, each with a status, a one-line summary and
// details, in report order, rendered as text for a person or as JSON for a script. The native
// command renders the same report (crates/parsebox-cli/src/native/report.rs); tests/js/cli-npx holds
// the two equal, byte for byte, over the compatibility corpus.

/**
 * @typedef {"pass" | "warn" | "fail" | "skip"} Status
 * @typedef {{ id: string, title: string, status: Status, summary: string, details: string[] }} Check
 * @typedef {{ format: string, exports: string[], otherExports: string[], entryPoint: string }} ReportModule
 */

/** A check; `details`: examples and explanations. @returns {Check} */
export const check = (id, title, status, summary, details = []) => ({ id, title, status, summary, details });

/** Report order, whatever order the checks were computed in. */
const ORDER = ["size", "imports", "load", "encoding", "contract_version", "exports_entry", "sample_log", "awkward_lines", "entries", "determinism", "reset_replay", "unstoppable"];

/** The checks that feed lines, with their titles. */
export const BEHAVIOUR_CHECKS = [
  ["sample_log", "sample log"],
  ["awkward_lines", "awkward lines"],
  ["entries", "entries"],
  ["determinism", "determinism"],
  ["reset_replay", "reset + replay"],
];

/** `"s"` unless `n` is 1. */
export const plural = (n) => (n === 1 ? "" : "s");

/** Where `id` goes in the report. */
const rank = (id) => {
  const at = ORDER.indexOf(id);
  return at === -1 ? ORDER.length : at;
};

/**
 * The report over `checks` (sorted into report order, stably); `passed` when none failed (and,
 * with `strict`, none warned).
 * @param {string} parser the parser file, as given
 * @param {boolean} strict
 * @param {ReportModule | null} module
 * @param {Check[]} checks
 */
export function report(parser, strict, module, checks) {
  const ordered = checks.map((c, i) => [c, i]).sort(([a, i], [b, j]) => rank(a.id) - rank(b.id) || i - j).map(([c]) => c);
  const passed = ordered.every((c) => c.status === "pass" || c.status === "skip" || (c.status === "warn" && !strict));
  return { parser, passed, strict, module, checks: ordered };
}

/** Each status's mark and colour in the text report. */
const MARKS = { pass: ["✓", "green"], warn: ["!", "yellow"], fail: ["✗", "red"], skip: ["-", "gray"] };

/**
 * The report as `--json` (pretty, as the native command prints it) or as text.
 * @param {ReturnType<typeof report>} r
 * @param {boolean} json
 * @param {import("./render.js").Painter} p
 */
export function renderReport(r, json, p) {
  if (json) return `${JSON.stringify(r, null, 2)}\n`;
  let out = `${p.paint("bold", "parsebox check")} ${p.paint("plain", r.parser)}\n\n`;
  const width = Math.max(0, ...r.checks.map((c) => [...c.title].length));
  const indent = " ".repeat(width + 6);
  for (const c of r.checks) {
    const [mark, style] = MARKS[c.status];
    const pad = " ".repeat(Math.max(0, width - [...c.title].length));
    out += `  ${p.paint(style, mark)} ${p.paint("bold", c.title)}${pad}  ${p.paint(c.status === "skip" ? "gray" : "plain", c.summary)}\n`;
    for (const d of c.details) out += `${indent}${p.paint("gray", `· ${d.replaceAll("\n", `\n${indent}  `)}`)}\n`;
  }
  const count = (s) => r.checks.filter((c) => c.status === s).length;
  const [pass, warn, fail, skip] = ["pass", "warn", "fail", "skip"].map(count);
  const tally = [`${pass} passed`];
  if (fail > 0) tally.push(`${fail} failed`);
  if (warn > 0) tally.push(`${warn} warning${plural(warn)}${r.strict ? " (--strict: failing)" : ""}`);
  if (skip > 0) tally.push(`${skip} skipped`);
  const verdict = r.passed ? p.paint("green", "PASS") : p.paint("red", "FAIL");
  return `${out}\n${verdict}: ${tally.join(", ")}\n`;
}
