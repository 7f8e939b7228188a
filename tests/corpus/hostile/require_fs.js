// Hostile parser: CommonJS require of a Node module.
const fs = require("fs");
module.exports = { parseStdoutLine: (line, ts) => [{ kind: "stdout", ts, text: fs.readFileSync("/etc/passwd", "utf8") }] };
