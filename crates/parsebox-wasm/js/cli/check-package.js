// The package.json half of the contract (the seed doc's "Contract: package.json"):
// `paperclip.adapterUiParser` declares the contract version (major 1; missing is accepted for
// now), and `exports["./ui-parser"]` is how Paperclip's plugin loader finds the file.
import { realpathSync } from "node:fs";
import { dirname, join } from "node:path";

import { check } from "./report.js";

/** A string quoted as the native command's report quotes it. */
const quoted = (s) => JSON.stringify(s);

/** The major version of `"1.0.0"`, `"1.x"`, `"^1.2"`, `"v1"` (the registry's rule); null if none. */
export function majorVersion(v) {
  const head = v.trim().replace(/^[\^~=v]+/, "").split(".")[0];
  return /^[0-9]+$/.test(head) ? Number(head) : null;
}

/** The `contract_version` check of a parsed package.json. */
function contractVersion(pkg) {
  const c = (status, summary) => check("contract_version", "contract version", status, summary);
  const v = pkg?.paperclip?.adapterUiParser;
  if (v === undefined) {
    return c(
      "warn",
      'package.json has no paperclip.adapterUiParser; Paperclip accepts that for now (grace period), later versions may require it: add "paperclip": { "adapterUiParser": "1.0.0" }',
    );
  }
  if (typeof v !== "string") return c("fail", `paperclip.adapterUiParser must be a string like "1.0.0", found ${JSON.stringify(v)}`);
  const major = majorVersion(v);
  if (major === 1) return c("pass", `paperclip.adapterUiParser is ${quoted(v)} (this host supports 1.x)`);
  if (major !== null) return c("fail", `paperclip.adapterUiParser is ${quoted(v)}: Paperclip supports 1.x and falls back to the generic parser for ${major}.x`);
  return c("fail", `paperclip.adapterUiParser ${quoted(v)} is not a version; expected e.g. "1.0.0"`);
}

/** The file paths of an exports target: a string, the leaves of a conditions object, an array's. */
export function collectTargets(v, out = []) {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) collectTargets(x, out);
  else if (v !== null && typeof v === "object") for (const x of Object.values(v)) collectTargets(x, out);
  return out;
}

/** The real path of `p`, or null. */
const real = (p) => {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
};

/** The `exports_entry` check: the package at `packagePath` points Paperclip at `parser`. */
function exportsEntry(packagePath, pkg, parser) {
  const c = (status, summary, details) => check("exports_entry", 'exports["./ui-parser"]', status, summary, details);
  const exportsMap = pkg !== null && typeof pkg === "object" && !Array.isArray(pkg) ? pkg.exports : undefined;
  const target = exportsMap !== null && typeof exportsMap === "object" && !Array.isArray(exportsMap) ? exportsMap["./ui-parser"] : undefined;
  if (target === undefined) {
    return c("fail", 'package.json has no exports["./ui-parser"]: Paperclip will not find the parser (add "exports": { "./ui-parser": "./dist/ui-parser.js" })');
  }
  const targets = collectTargets(target);
  if (targets.length === 0) return c("fail", `exports["./ui-parser"] has no file path: ${JSON.stringify(target)}`);
  const dir = dirname(packagePath) || ".";
  const want = real(parser);
  const problems = [];
  let matched = null;
  for (const t of targets) {
    if (!t.startsWith("./")) {
      problems.push(`${quoted(t)} must start with "./" (a path inside the package)`);
      continue;
    }
    const p = real(join(dir, t));
    if (p === null) problems.push(`${quoted(t)} does not exist (relative to ${dir})`);
    else if (p === want) matched = t;
    else problems.push(`${quoted(t)} is ${p}, not the checked file`);
  }
  return matched !== null
    ? c("pass", `exports["./ui-parser"] is ${quoted(matched)}, the checked file`, problems)
    : c("fail", `exports["./ui-parser"] does not point at ${parser}`, problems);
}

/**
 * The package checks of `check --package`: `pkg` is `{ path, json }` (json the parsed value,
 * or `{ error }` when the file is not JSON), or null without `--package`; `parser` the checked file.
 */
export function packageChecks(pkg, parser) {
  if (pkg === null) {
    return [check("contract_version", "contract version", "skip", "no --package given"), check("exports_entry", 'exports["./ui-parser"]', "skip", "no --package given")];
  }
  if ("error" in pkg) {
    return [
      check("contract_version", "contract version", "fail", `${pkg.path} is not valid JSON: ${pkg.error}`),
      check("exports_entry", 'exports["./ui-parser"]', "skip", "package.json unreadable"),
    ];
  }
  return [contractVersion(pkg.json), exportsEntry(pkg.path, pkg.json, parser)];
}
