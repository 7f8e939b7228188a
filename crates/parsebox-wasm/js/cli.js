#!/usr/bin/env node
// `npx parsebox`: the `parsebox` command on the package's own two modules (cli/main.js), with
// its arguments read as the native command reads them (cli/args.js). Node >= 20, nothing else.
// V8's tiering budget is set first, before anything compiles the engine module (cli/tiers.js).
import { setFlagsFromString } from "node:v8";
import { tieringFlags } from "./cli/tiers.js";

for (const flag of tieringFlags(process.execArgv)) setFlagsFromString(flag);
const { main } = await import("./cli/main.js");
const code = await main(process.argv.slice(2));
// The engines' threads are not waited for: the command has said everything.
process.exitCode = code;
process.exit(code);
