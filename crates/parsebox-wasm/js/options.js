// Checking what callers pass (options by the core's table; ranges are the core's to check
// too), and Paperclip's default source loader.
import { checkOptions as checkOptionsInCore } from "./parsebox_wasm.js";
import { ParseboxOptionsError, guarded } from "./errors.js";
import { checkInit } from "./instance.js";

/**
 * Checks the options object of entry point `what` (the core's one table of keys and kinds);
 * returns it, or `{}` for none.
 */
export function checkOptions(what, options) {
  checkInit();
  guarded(() => checkOptionsInCore(what, options));
  return options ?? {};
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
