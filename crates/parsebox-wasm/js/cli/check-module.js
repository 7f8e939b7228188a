// The checks on the parser file itself: size, imports, load (the module's shape and exports, or
// why it did not load) and encoding. They read the parser's status in the package's registry
// (started with its size limit lifted, so that an oversized file still gets every other check):
// the engine that loaded it says what it is or why it did not load, as it says it to a page.
import { check } from "./report.js";
import { thousands } from "./lines.js";
import { describeLoadError } from "./registry.js";

/** What to do about a load error, for the report (none for the codes that say it already). */
const LOAD_HINTS = {
  syntax_error: "the file must parse as an ES2023 script or module",
  no_export: "export createStdoutParser() (stateful) and/or parseStdoutLine(line, ts) (stateless)",
  bad_factory: "createStdoutParser() must return an object with parseLine(line, ts) and reset()",
  top_level_await: "a ui-parser is evaluated synchronously: move the await into a function",
  unsafe_regex: "rewrite the regex without nested or overlapping quantifiers",
  init_threw: "module evaluation and createStdoutParser() may not throw; they run with no host globals",
  init_budget_exceeded: "module evaluation plus createStdoutParser() must finish within the init budget",
  unsupported_module: "the ES module could not be rewritten for the sandbox; please report this file",
};

/** The sentence of a module check whose engine ended while loading it. */
const ENDED_HINT =
  "the module's evaluation and createStdoutParser() must end: one native operation at its top level (a regex, split or replace over a long string, building a huge one) ran past the deadline, or the engine died";

/** The `load` check's summary: "ES module exporting … ; the sandbox drives …". */
function describeShape(m) {
  let out = `${m.format === "esm" ? "ES module" : "CommonJS module"} exporting ${m.exports.join(" and ")}`;
  if (m.exports.length > 1) out += `; the sandbox drives ${m.entryPoint}`;
  if (m.otherExports.length > 0) out += ` (also exports ${m.otherExports.join(", ")}, ignored)`;
  return out;
}

/**
 * The size, imports, load and encoding checks of a parser of `size` bytes (`limit`: the
 * largest Paperclip takes; `utf8`: whether the file was valid UTF-8), whose load in the
 * registry ended in `status`. Returns the checks and the module's shape for the report (null
 * when it did not load).
 * @param {number} size
 * @param {number} limit
 * @param {boolean} utf8
 * @param {import("../index.js").AdapterStatus} status
 */
export function moduleChecks(size, limit, utf8, status) {
  const checks = [];
  const pct = limit > 0 ? Math.floor((size * 100) / limit) : 100;
  checks.push(
    size <= limit
      ? check("size", "size", "pass", `${thousands(size)} bytes of ${thousands(limit)} allowed (${pct}%)`)
      : check("size", "size", "fail", `${thousands(size)} bytes: over the ${thousands(limit)}-byte limit; Paperclip refuses to load it`),
  );
  const noImports = () => check("imports", "imports", "pass", "none (no import, require() or import())");
  const undetermined = () => check("imports", "imports", "skip", "not determined (the load stopped earlier)");
  let module = null;
  const e = status.error;
  if (status.state === "ready" && status.module) {
    module = { ...status.module, entryPoint: status.entryPoint };
    checks.push(noImports(), check("load", "module", "pass", describeShape(module)));
  } else if (!e || e.code === "engine_fault") {
    // The engine ended while loading it (its start ran past the deadline, or it died).
    checks.push(undetermined(), check("load", "module", "fail", e ? describeLoadError(e) : (status.reason ?? status.state), [ENDED_HINT]));
  } else if (e.code === "imports") {
    checks.push(
      check("imports", "imports", "fail", describeLoadError(e), ["a ui-parser must have zero imports: bundle everything into the one file (esbuild --bundle)"]),
      check("load", "module", "skip", "not loaded: the sandbox refuses modules with imports"),
    );
  } else {
    const hint = LOAD_HINTS[e.code];
    checks.push(e.code === "unsafe_regex" ? undetermined() : noImports(), check("load", "module", "fail", describeLoadError(e), hint ? [hint] : []));
  }
  if (!utf8) checks.push(check("encoding", "encoding", "fail", "the file is not valid UTF-8; Paperclip serves it as UTF-8 text, so the bad bytes become U+FFFD"));
  return { checks, module };
}
