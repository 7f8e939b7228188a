// A parser shape for the per-shape benchmark (BENCHMARKS.md): tokenises a line with regexes
// (a split on whitespace, a clean-up replace and a test or two per token, a match), as
// text-log parsers that pick numbers, paths and a level out of free text do.
const NUMBER = /^\d+(?:\.\d+)?$/;
const PATHLIKE = /^\/?[\w.-]+(?:\/[\w.-]+)+$/;
export function parseStdoutLine(line, ts) {
  const tokens = line.split(/\s+/);
  let numbers = 0;
  const paths = [];
  for (const token of tokens) {
    const word = token.replace(/^["'([{]+|["',)\]}:;]+$/g, "");
    if (NUMBER.test(word)) numbers++;
    else if (PATHLIKE.test(word)) paths.push(word);
  }
  const level = line.match(/\[(\w+)\]/);
  return [{ kind: "system", ts, text: `${tokens.length} tokens`, level: level ? level[1] : null, numbers, paths: paths.slice(0, 5) }];
}
