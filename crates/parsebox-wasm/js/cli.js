#!/usr/bin/env node
// `npx parsebox`: `check` and `parse` run on the package's own two modules (cli/main.js). What
// those do not take (help, version, a usage error) is said by the `parsebox` command's argument
// reader, the Rust crate's clap built for WASI (parsebox_cli.wasm, crates/parsebox-cli/npm.sh),
// so it reads exactly as the native command's. Node >= 20, nothing else.
import { readFile } from "node:fs/promises";

/**
 * What the argument reader says of `argv` (help and version on stdout with code 0, a usage
 * error on stderr with code 2); resolves to its exit code.
 * @param {string[]} argv
 */
async function readerSays(argv) {
  // node:wasi says it is experimental on stderr the first time it is loaded: the command's
  // stderr is the reader's alone.
  const warn = process.emitWarning;
  process.emitWarning = (warning, ...rest) => {
    const name = typeof rest[0] === "string" ? rest[0] : rest[0]?.type;
    if (name === "ExperimentalWarning" && String(warning).includes("WASI")) return;
    warn.call(process, warning, ...rest);
  };
  const { WASI } = await import("node:wasi");
  const wasi = new WASI({ version: "preview1", args: ["parsebox", ...argv], env: {}, returnOnExit: true });
  const module = await WebAssembly.compile(await readFile(new URL("./parsebox_cli.wasm", import.meta.url)));
  return wasi.start(await WebAssembly.instantiate(module, wasi.getImportObject()));
}

const argv = process.argv.slice(2);
const { main } = await import("./cli/main.js");
const code = (await main(argv)) ?? (await readerSays(argv));
// The engines' threads are not waited for: the command has said everything.
process.exitCode = code;
process.exit(code);
