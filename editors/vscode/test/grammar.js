// The grammar test: tokenizes every model and universe file of the repository's examples (and
// the conformance models under tests/data) with the extension's TextMate grammars, through the
// same engine VS Code uses (vscode-textmate + the Oniguruma regex library), and fails on any
// character the grammar marks invalid, i.e. that no rule of the language matches. Then checks
// that both notations of each operator get the same scope (test/notation.txt).
"use strict";

const fs = require("fs");
const path = require("path");
const vsctm = require("vscode-textmate");
const oniguruma = require("vscode-oniguruma");

const repository = path.resolve(__dirname, "../../..");
const grammars = {
  "source.ioa": path.join(__dirname, "../syntaxes/ioa.tmLanguage.json"),
  "source.ioa-universe": path.join(__dirname, "../syntaxes/ioa-universe.tmLanguage.json"),
};

const wasm = fs.readFileSync(require.resolve("vscode-oniguruma/release/onig.wasm")).buffer;
const onigLib = oniguruma.loadWASM(wasm).then(() => ({
  createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
  createOnigString: (text) => new oniguruma.OnigString(text),
}));
const registry = new vsctm.Registry({
  onigLib,
  loadGrammar: async (scope) => {
    const file = grammars[scope];
    return file ? vsctm.parseRawGrammar(fs.readFileSync(file, "utf8"), file) : null;
  },
});

function filesUnder(dir, extension) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(full, extension));
    else if (entry.name.endsWith(extension)) out.push(full);
  }
  return out.sort();
}

/** Every token of a text: { line, column, text, scopes }. */
function tokenize(grammar, text) {
  const tokens = [];
  let state = vsctm.INITIAL;
  text.split("\n").forEach((line, lineIndex) => {
    const result = grammar.tokenizeLine(line, state);
    for (const token of result.tokens) {
      tokens.push({
        line: lineIndex + 1,
        column: token.startIndex + 1,
        text: line.slice(token.startIndex, token.endIndex),
        scopes: token.scopes,
      });
    }
    state = result.ruleStack;
  });
  return tokens;
}

async function main() {
  const ioa = await registry.loadGrammar("source.ioa");
  const universe = await registry.loadGrammar("source.ioa-universe");
  const sets = [
    [ioa, ".ioa", ["examples", "tests/data/manual", "tests/data/lsp", "tests/data/elsewhere"]],
    [universe, ".universe", ["examples", "tests/data/manual", "tests/data/lsp"]],
  ];
  let files = 0;
  let tokens = 0;
  const failures = [];
  for (const [grammar, extension, dirs] of sets) {
    for (const dir of dirs) {
      const full = path.join(repository, dir);
      if (!fs.existsSync(full)) continue;
      for (const file of filesUnder(full, extension)) {
        files += 1;
        for (const token of tokenize(grammar, fs.readFileSync(file, "utf8"))) {
          tokens += 1;
          if (token.scopes.some((s) => s.startsWith("invalid"))) {
            failures.push(`${path.relative(repository, file)}:${token.line}:${token.column}: no rule matches \`${token.text}\``);
          }
        }
      }
    }
  }

  // Both notations of an operator, and the other listed spellings, get the scope named.
  const cases = fs
    .readFileSync(path.join(__dirname, "notation.txt"), "utf8")
    .split("\n")
    .filter((l) => l.trim() && !l.startsWith("#"));
  for (const line of cases) {
    const [scope, ...spellings] = line.trim().split(/\s+/);
    for (const spelling of spellings) {
      const found = tokenize(ioa, `x ${spelling} y`).find(
        (t) => t.text === spelling || (spelling.startsWith("%") && t.text.startsWith(spelling))
      );
      if (!found || !found.scopes.includes(scope)) {
        failures.push(`\`${spelling}\` is ${found ? found.scopes.join(" ") : "not one token"}, expected ${scope}`);
      }
    }
  }

  // The test can fail: characters outside the language are marked invalid.
  for (const stray of ["#", "@", "$", "?"]) {
    const marked = tokenize(ioa, `x ${stray} y`).some((t) => t.text === stray && t.scopes.some((s) => s.startsWith("invalid")));
    if (!marked) failures.push(`\`${stray}\` is not marked invalid`);
  }

  if (failures.length > 0) {
    console.error(failures.join("\n"));
    console.error(`grammar test: ${failures.length} failure(s)`);
    process.exit(1);
  }
  console.log(`grammar test: ${files} files, ${tokens} tokens, ${cases.length} notation cases, no invalid token`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
