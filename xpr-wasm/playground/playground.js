// The playground: evaluates the expression against the JSON context with
// the npm package, shows the result or the error with a caret under its
// span, the fuel and memory used and the bytecode. Runs on the page's own
// thread: every run is bounded by the default budgets (fuel, memory, 100 ms).

import { compile, card, utf16Index, XprError } from "../pkg/index.js";

const EXAMPLES = [
  {
    name: "Filter and map",
    expr: "items.filter(x => x.price > 50).map(x => x.name)",
    context: { items: [{ name: "pen", price: 3 }, { name: "desk", price: 120 }, { name: "lamp", price: 65 }] },
  },
  {
    name: "A rule",
    expr: '(Origin == "MOW" || Country == "RU") && (Value >= 100 || Adults == 1)',
    context: { Origin: "MOW", Country: "RU", Value: 100, Adults: 1 },
  },
  {
    name: "Strings",
    expr: '`${user.name.upper()} has ${user.tags.length} tags: ${user.tags.join(", ")}`',
    context: { user: { name: "ada", tags: ["math", "engines"] } },
  },
  {
    name: "Aggregate",
    expr: "let total = orders.map(o => o.qty * o.price).sum(); {total: total, mean: total / orders.length}",
    context: { orders: [{ qty: 2, price: 10 }, { qty: 1, price: 5.5 }] },
  },
  {
    name: "A syntax error",
    expr: "items.filter(x => x.price > ).map(x => x.name)",
    context: { items: [] },
  },
  {
    name: "A runaway (stopped by the budget)",
    expr: "range(0, 1e9).map(x => x)",
    context: {},
  },
];

const $ = (id) => document.getElementById(id);
const exprBox = $("expr");
const contextBox = $("context");

function show(id, text) {
  $(id).textContent = text;
}

/** The source line holding character `start`, and a caret line under the span. */
function caret(source, span) {
  const from = utf16Index(source, span.start);
  const to = Math.max(from, utf16Index(source, span.end));
  const lineStart = source.lastIndexOf("\n", from - 1) + 1;
  let lineEnd = source.indexOf("\n", from);
  if (lineEnd < 0) lineEnd = source.length;
  const line = source.slice(lineStart, lineEnd);
  const pad = [...source.slice(lineStart, from)].map((c) => (c === "\t" ? "\t" : " ")).join("");
  const width = Math.max(1, [...source.slice(from, Math.min(to, lineEnd))].length);
  return `${line}\n${pad}${"^".repeat(width)}`;
}

function showError(e, source) {
  $("error").hidden = false;
  show("result", "");
  show("error-text", `${e.kind} error: ${e.message}`);
  show("caret", e.span ? caret(source, e.span) : "");
  show("hint", e.hint ? `hint: ${e.hint}` : "");
}

function run() {
  const source = exprBox.value;
  $("error").hidden = true;
  show("usage", "");
  show("disasm", "");
  let context;
  try {
    context = contextBox.value.trim() === "" ? {} : JSON.parse(contextBox.value);
  } catch (err) {
    showError({ kind: "input", message: `the context is not JSON: ${err.message}`, span: null, hint: null }, source);
    show("status", "error");
    return;
  }
  let program;
  try {
    program = compile(source);
  } catch (e) {
    if (!(e instanceof XprError)) throw e;
    showError(e, source);
    show("status", "error");
    return;
  }
  try {
    show("disasm", program.disassemble());
    const started = performance.now();
    try {
      const value = program.evaluate(context);
      show("result", JSON.stringify(value, null, 2));
      show("status", "ok");
    } catch (e) {
      if (!(e instanceof XprError)) throw e;
      showError(e, source);
      show("status", "error");
    }
    const ms = performance.now() - started;
    show(
      "usage",
      `fuel ${program.fuelUsed.toLocaleString("en")} units · memory ${program.memoryUsed.toLocaleString("en")} bytes · ${ms.toFixed(1)} ms`,
    );
  } finally {
    program.free();
  }
}

function pick(i) {
  const ex = EXAMPLES[i];
  exprBox.value = ex.expr;
  contextBox.value = JSON.stringify(ex.context, null, 2);
  run();
}

for (const [i, ex] of EXAMPLES.entries()) {
  const opt = document.createElement("option");
  opt.value = String(i);
  opt.textContent = ex.name;
  $("example").append(opt);
}
$("example").addEventListener("change", (ev) => pick(Number(ev.target.value)));
$("run").addEventListener("click", run);
for (const box of [exprBox, contextBox]) {
  box.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) {
      ev.preventDefault();
      run();
    }
  });
}
let pending;
exprBox.addEventListener("input", () => {
  clearTimeout(pending);
  pending = setTimeout(run, 250);
});
show("card", card());
pick(0);
document.body.dataset.ready = "1";
