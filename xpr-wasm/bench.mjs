// Benchmark (not a test): nanoseconds per evaluation of case a,
//   (Origin == "MOW" || Country == "RU") && (Value >= 100 || Adults == 1)
// on one record, compiled once, in Node.js through the npm package (pkg/,
// built by build.sh), against a plain JavaScript closure and, when
// XPR_JS_REF names its built dist/ directory, the reference JavaScript
// runtime (xpr-lang/xpr-js, v0.3; its public API parses on every call, so it
// is also timed with its AST parsed once, through its internal modules).
// All in one process, rounds interleaved; the medians and their ratios are
// printed.
//
//   node xpr-wasm/bench.mjs [ROUNDS]

import { compile } from "./pkg/index.js";

const CASE_A = '(Origin == "MOW" || Country == "RU") && (Value >= 100 || Adults == 1)';
const record = { Origin: "MOW", Country: "FR", Value: 150, Adults: 2 };
const rounds = Number(process.argv[2] ?? 15);

const program = compile(CASE_A);
let refErrors = 0;
const closure = (r) => (r.Origin === "MOW" || r.Country === "RU") && (r.Value >= 100 || r.Adults === 1);

const peers = [
  ["xpr-wasm (npm package)", () => program.evaluate(record), 20_000],
  ["plain JavaScript closure", () => closure(record), 5_000_000],
];

if (process.env.XPR_JS_REF) {
  const dir = process.env.XPR_JS_REF.replace(/\/$/, "");
  const ref = await import(`${dir}/index.js`);
  const { tokenize } = await import(`${dir}/tokenizer.js`);
  const { parse } = await import(`${dir}/parser.js`);
  const { evalExpr } = await import(`${dir}/evaluator.js`);
  const xpr = new ref.Xpr();
  const ast = parse(tokenize(CASE_A));
  const fns = new Map();
  // Its 100 ms wall-clock timeout starts at each call: a pause of the
  // process (a loaded machine) can make one call fail; those are counted.
  const guard = (f) => () => {
    try {
      return f();
    } catch {
      refErrors += 1;
      return true;
    }
  };
  peers.push(["reference xpr-js, evaluate()", guard(() => xpr.evaluate(CASE_A, record)), 20_000]);
  peers.push(["reference xpr-js, AST reused", guard(() => evalExpr(ast, record, fns)), 200_000]);
}

for (const [name, f] of peers) {
  if (f() !== true) throw new Error(`${name} answered ${f()}`);
}

let sink = 0;
function time(f, n) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) if (f()) sink++;
  return Number(process.hrtime.bigint() - t0) / n;
}

const samples = peers.map(() => []);
for (let r = 0; r < rounds + 2; r++) {
  peers.forEach(([, f, n], i) => {
    const ns = time(f, n);
    if (r >= 2) samples[i].push(ns); // two warm-up rounds
  });
}
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
const medians = samples.map(median);
console.log(`case a, one record, ${rounds} rounds, Node ${process.version}`);
for (const [i, [name]] of peers.entries()) {
  const ratio = medians[i] / medians[0];
  console.log(`${name.padEnd(32)} ${medians[i].toFixed(1).padStart(10)} ns/eval  ${ratio.toFixed(3)}x xpr-wasm`);
}
if (refErrors > 0) console.log(`reference calls that timed out (counted as answered): ${refErrors}`);
if (sink < 0) console.log(sink);
