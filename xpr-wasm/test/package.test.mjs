// The npm package's API in Node.js: values in and out, XprError, limits,
// the host clocks, the seed, cancellation, parse/check diagnostics, the card.

import { test } from "node:test";
import assert from "node:assert/strict";
import { compile, evaluate, parse, check, card, utf16Index, XprError } from "../pkg/index.js";

test("JSON-like values cross both ways", () => {
  const p = compile("items.filter(x => x.price > 50).map(x => {name: x.name, big: true})");
  const ctx = { items: [{ name: "pen", price: 3 }, { name: "desk", price: 120 }] };
  assert.deepEqual(p.evaluate(ctx), [{ name: "desk", big: true }]);
  assert.deepEqual(p.freeVariables, ["items"]);
  assert.equal(evaluate("a + 1", { a: 41 }), 42);
  assert.equal(evaluate("s.upper()", { s: "ßx" }), "SSX");
  assert.equal(evaluate("x == null", { x: null }), true);
  // A Date goes in as JSON.stringify gives it: its ISO string.
  assert.equal(evaluate("d", { d: new Date(Date.UTC(2024, 0, 2)) }), "2024-01-02T00:00:00.000Z");
  assert.equal(evaluate("1"), 1);
});

test("errors are XprError with kind, message, span and hint", () => {
  assert.throws(() => compile("items.filter(x => x.price > )"), (e) => {
    assert.ok(e instanceof XprError && e instanceof Error);
    assert.equal(e.kind, "parse");
    assert.deepEqual(e.span, { start: 28, end: 29 });
    assert.equal(e.position, 28);
    assert.match(e.message, /Unexpected token '\)' at position 28/);
    assert.ok(e.expected.length > 0);
    return true;
  });
  assert.throws(() => evaluate("a - 1", { a: "x" }), (e) => e.kind === "type" && e.span.start === 0);
  assert.throws(() => compile("{total, n: 1}"), (e) => e.kind === "parse" && /write \{name: name\}/.test(e.hint));
});

test("budgets stop hostile expressions", () => {
  assert.throws(() => evaluate("range(0, 1e9).map(x => x)"), (e) => e.kind === "memory");
  const p = compile("range(1000).sum()", { fuel: 100 });
  assert.throws(() => p.evaluate(), (e) => e.kind === "fuel");
  assert.ok(p.fuelUsed >= 100);
  assert.throws(() => compile("x".repeat(20), { maxLength: 10 }), (e) => e.kind === "length");
  assert.throws(() => compile("1", { fuel: -1 }), (e) => e.kind === "input" && /'fuel'/.test(e.message));
  assert.throws(() => compile("1", { gas: 1 }), (e) => e.kind === "input");
});

test("the time limit runs on the host's clock (performance.now)", () => {
  // Far more work than 1 ms on any machine; without a host clock the
  // WebAssembly build would have no time limit at all.
  const p = compile("range(1e6).reduce((a, x) => a + x * 2, 0)", { fuel: null, memory: null, timeoutMs: 1 });
  assert.throws(() => p.evaluate(), (e) => e.kind === "timeout");
});

test("now() is the host's Date.now()", () => {
  const before = Date.now();
  const t = evaluate("now()");
  assert.ok(t >= before - 1 && t <= Date.now() + 1, `${t}`);
});

test("random() follows the seed, and differs between unseeded runs", () => {
  const p = compile("[random(), random()]");
  assert.deepEqual(p.evaluate({}, { seed: 7 }), p.evaluate({}, { seed: 7n }));
  assert.notDeepEqual(p.evaluate({}, { seed: 7 }), p.evaluate({}, { seed: 8 }));
  assert.notDeepEqual(p.evaluate(), p.evaluate());
});

test("an aborted signal cancels before the run", () => {
  const p = compile("1 + 1");
  const ac = new AbortController();
  assert.equal(p.evaluate({}, { signal: ac.signal }), 2);
  ac.abort();
  assert.throws(() => p.evaluate({}, { signal: ac.signal }), (e) => e instanceof XprError && e.kind === "cancelled");
});

test("fuel and memory of the last run, and the bytecode", () => {
  const p = compile("[1, 2, 3].map(x => `n${x}`)");
  assert.deepEqual(p.evaluate(), ["n1", "n2", "n3"]);
  assert.ok(p.fuelUsed > 0);
  assert.ok(p.memoryUsed > 0);
  assert.match(p.disassemble(), /\S/);
});

test("parse and check report diagnostics without running", () => {
  assert.deepEqual(parse("1 + 1"), []);
  const [d] = parse("(1 + ");
  assert.equal(d.kind, "parse");
  assert.equal(d.severity, "error");
  assert.ok(d.span && d.expected.length > 0);
  const ok = check("y + 1", { fields: ["x"] });
  assert.equal(ok.valid, true);
  assert.equal(ok.warnings[0].span.start, 0);
  assert.deepEqual(ok.freeVariables, ["y"]);
  const bad = check("1 +");
  assert.equal(bad.valid, false);
  assert.equal(bad.errors[0].kind, "parse");
  assert.equal(bad.freeVariables, null);
});

test("spans count characters; utf16Index maps them to string indexes", () => {
  const src = '"😀" + 1 +';
  assert.throws(() => compile(src), (e) => {
    // Nine characters, ten UTF-16 units: the error is at the end.
    assert.equal(e.span.start, 9);
    assert.equal(utf16Index(src, e.span.start), src.length);
    return true;
  });
  assert.equal(utf16Index("😀x", 1), 2);
});

test("the language card is the library's", () => {
  const text = card();
  assert.match(text, /filter/);
  assert.ok(text.length > 1000);
});

test("a wide record gives the same results as its read fields", () => {
  const wide = {};
  for (let i = 0; i < 200; i++) wide[`f${i}`] = { n: i, s: `v${i}` };
  wide.max = 5; // a context value named like a built-in function
  const p = compile("[f3.n + f150.n, f7.s, max(f1.n, 9)]");
  assert.deepEqual(p.evaluate(wide), [153, "v7", 9]);
  assert.deepEqual(p.evaluate({ f3: { n: 1 }, f150: { n: 2 }, f7: { s: "x" }, f1: { n: 0 } }), [3, "x", 9]);
  // A member JSON drops (undefined) is unknown, wide record or not.
  const b = compile("b");
  for (const ctx of [{ ...wide, b: undefined }, { b: undefined }]) {
    assert.throws(() => b.evaluate(ctx), (e) => e.message === "Unknown identifier 'b' at position 0");
  }
  // An object with toJSON is sent as JSON.stringify makes it.
  const a = compile("a");
  assert.equal(a.evaluate({ ...wide, a: 1, toJSON: () => ({ a: 2 }) }), 2);
});

test("values nested 20,000 deep cross back without exhausting WebAssembly's stack", () => {
  // WebAssembly's stack is 1 MB; with the value depth lifted, nothing on the
  // way out (JSON text, equality, string()) may recurse per level.
  const limits = { timeoutMs: null, valueDepth: 1_000_000, memory: null };
  const deep = "range(20000).reduce((a, x) => [a], [])";
  let v = compile(deep, limits).evaluate();
  let depth = 0;
  while (Array.isArray(v) && v.length === 1) {
    v = v[0];
    depth += 1;
  }
  assert.equal(depth, 20_000);
  assert.equal(compile(`${deep} == ${deep}`, limits).evaluate(), true);
  assert.equal(compile(`string(${deep}).len()`, limits).evaluate(), 40_002);
  // A context nested past serde_json's 128 levels is an input error.
  const ctx = JSON.parse("[".repeat(200) + "]".repeat(200));
  assert.throws(() => compile("x").evaluate({ x: ctx }), (e) => e.kind === "input");
});
