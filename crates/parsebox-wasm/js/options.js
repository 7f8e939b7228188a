// Checking what callers pass (types only: ranges are the core's to check), Paperclip's default
// source loader, and the generic entry.
import { ParseboxOptionsError } from "./errors.js";

export const OPTION_TYPES = {
  lineBudgetMs: "number",
  hardDeadlineMs: "number",
  callBudgetMs: "number",
  rebuildSliceMs: "number",
  initBudgetMs: "number",
  maxSourceBytes: "number",
  maxLineBytes: "number",
  maxEntriesPerLine: "number",
  maxStringBytes: "number",
  maxMemoryBytes: "number",
};

/**
 * Checks `options` against `allowed`: option name → "number" (positive, finite), "boolean",
 * "function?" (a function or null), "object?" (an object or null), or an array of the strings
 * it may be.
 */
export function checkOptions(options, allowed, what) {
  if (options === undefined || options === null) return {};
  if (typeof options !== "object") throw new ParseboxOptionsError(`${what} options must be an object`);
  for (const key of Object.keys(options)) {
    if (!(key in allowed)) throw new ParseboxOptionsError(`unknown ${what} option "${key}" (known: ${Object.keys(allowed).join(", ")})`);
    const want = allowed[key];
    const v = options[key];
    if (v === undefined) continue;
    if (want === "number" && !(typeof v === "number" && Number.isFinite(v) && v > 0)) {
      throw new ParseboxOptionsError(`${what} option "${key}" must be a positive number, got ${String(v)}`);
    }
    if (want === "boolean" && typeof v !== "boolean") throw new ParseboxOptionsError(`${what} option "${key}" must be a boolean`);
    if (Array.isArray(want) && !want.includes(v)) {
      const names = want.map((w) => JSON.stringify(w));
      throw new ParseboxOptionsError(`${what} option "${key}" must be ${names.slice(0, -1).join(", ")} or ${names.at(-1)}, got ${JSON.stringify(v)}`);
    }
    if (want === "object?" && v !== null && typeof v !== "object") throw new ParseboxOptionsError(`${what} option "${key}" must be an object or null`);
    if (want === "function?" && v !== null && typeof v !== "function") {
      throw new ParseboxOptionsError(`${what} option "${key}" must be a function or null`);
    }
  }
  return options;
}

export function checkString(value, name) {
  if (typeof value !== "string") throw new ParseboxOptionsError(`${name} must be a string, got ${value === null ? "null" : typeof value}`);
}

/** Paperclip's default loader: `GET /api/adapters/:type/ui-parser.js`. */
export async function defaultLoadSource(type) {
  const url = `/api/adapters/${encodeURIComponent(type)}/ui-parser.js`;
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${response.statusText}`.trim());
  return response.text();
}
