// Compiled (not run) by types.test.mjs against the package's index.d.ts:
// the documented uses type-check under --strict.
import { compile, evaluate, check, parse, card, utf16Index, XprError } from "xpr-wasm";
import type { Limits, JsonValue, Diagnostic, CheckReport, Span } from "xpr-wasm";

const limits: Limits = { fuel: 100_000, memory: null, timeoutMs: 50, wallTimeoutMs: null };
const rule = compile("delay > 60 && distance > 1000", limits);
const ac = new AbortController();
const out: JsonValue = rule.evaluate({ delay: 75, distance: 1200 }, { signal: ac.signal, seed: 7n });
const used: number = rule.fuelUsed + rule.memoryUsed;
const names: string[] = rule.freeVariables;
const listing: string = rule.disassemble();
rule.free();
try {
  compile("1 +");
} catch (e) {
  if (e instanceof XprError) {
    const kind: string = e.kind;
    const at: Span | null = e.span;
    const hint: string | null = e.hint;
    const expected: string[] = e.expected;
    console.log(kind, at, hint, expected, e.message);
  }
}
const report: CheckReport = check("y + 1", { fields: ["x"] });
const first: Diagnostic | undefined = report.warnings[0];
const diagnostics: Diagnostic[] = parse("(1 +");
console.log(out, used, names, listing, first, diagnostics, card(), utf16Index("x", 0), evaluate("1"));
