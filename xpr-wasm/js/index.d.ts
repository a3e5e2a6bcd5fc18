// Types of the XPR npm package (XPR v0.5 compiled to WebAssembly).
//
// Values cross as JSON-like JavaScript values: numbers, strings, booleans,
// null, arrays and plain objects. A context goes in through JSON.stringify
// (so a Date becomes its ISO string, undefined members vanish, and NaN or
// Infinity become null); a result comes out through JSON.parse. XPR's dates
// are ISO 8601 strings and epoch milliseconds, as the library's date
// functions take and give them.

/** A character range of the source: `start` inclusive, `end` exclusive,
 * counted in characters (Unicode code points), not UTF-16 units; see
 * {@link utf16Index}. */
export interface Span {
  start: number;
  end: number;
}

/** Budgets of a compile and a run. An absent key keeps the default; `null`
 * lifts the limit (not for the depths). */
export interface Limits {
  /** Fuel units per run: one per instruction plus built-ins' proportional
   * costs. Default 10,000,000. */
  fuel?: number | null;
  /** Bytes of strings, arrays and objects a run may create. Default 64 MiB. */
  memory?: number | null;
  /** Nesting of function calls. Default 200. */
  callDepth?: number;
  /** Nesting of arrays and objects. */
  valueDepth?: number;
  /** Time per run, in milliseconds (default 100). WebAssembly has no CPU
   * clock: it is measured with `performance.now()`, so it counts the time
   * the run takes, whatever else the machine does. */
  timeoutMs?: number | null;
  /** A second, larger time ceiling in milliseconds (default ten times
   * `timeoutMs`); `null`: none. */
  wallTimeoutMs?: number | null;
  /** Source length in characters. Default 10,000. */
  maxLength?: number | null;
  /** AST depth. Default 50. */
  maxDepth?: number | null;
  /** Compiled bytes of a program's regex literals. Default 8 MiB. */
  maxRegexBytes?: number | null;
}

/** What {@link Program.evaluate} takes besides the context. */
export interface EvaluateOptions {
  /** Cancels the evaluation. An evaluation runs synchronously to its end,
   * and no JavaScript runs meanwhile (no timer, no event), so a signal can
   * only be seen when `evaluate` starts: an aborted signal makes it throw
   * `XprError` of kind `"cancelled"` without running. A run in progress is
   * bounded by the budgets instead (fuel, memory, `timeoutMs`); to stop one
   * at will, evaluate in a Worker and terminate the worker. */
  signal?: AbortSignal;
  /** The seed of `random()` for this run (a 64-bit integer); default a new
   * one from `crypto.getRandomValues` every run. */
  seed?: number | bigint;
}

/** An XPR error. `message` is the spec's full text (`... at position N`),
 * which the conformance suites match. */
export class XprError extends Error {
  /** `"parse"`, `"length"`, `"depth"`, `"type"`, `"reference"`, `"access"`,
   * `"value"`, `"fuel"`, `"memory"`, `"timeout"`, `"cancelled"`, ..., or
   * `"input"` for a context or limits the package cannot take. */
  readonly kind: string;
  /** Where in the source, when known. */
  readonly span: Span | null;
  /** `span.start`, the spec's `position`, when known. */
  readonly position: number | null;
  /** What to write instead, when there is a suggestion. */
  readonly hint: string | null;
  /** For a parse error, the tokens the parser would have accepted. */
  readonly expected: string[];
  /** The message without ` at position N`. */
  readonly detail: string;
}

/** A problem `parse` or `check` found, without running anything. */
export interface Diagnostic {
  kind: string;
  /** The message without the position. */
  message: string;
  /** The full text, `... at position N` when the position is known. */
  text: string;
  span: Span | null;
  hint: string | null;
  /** For a parse error, the tokens the parser would have accepted. */
  expected: string[];
  severity: "error" | "warning";
  /** A warning's name (`"unknown_field"`, ...). */
  name?: string;
  /** A warning's replacement, when there is one. */
  suggestion?: string | null;
}

/** The result of {@link check}. */
export interface CheckReport {
  /** Whether the expression compiles (warnings allowed). */
  valid: boolean;
  errors: Diagnostic[];
  warnings: Diagnostic[];
  /** The context fields read (null when it did not compile). */
  freeVariables: string[] | null;
  /** The functions called by name (null when it did not compile). */
  functions: string[] | null;
}

/** A JSON-like value. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

/** A compiled expression, with its own VM. Compile once, evaluate many. */
export class Program {
  private constructor();
  /** The expression's source text. */
  readonly source: string;
  /** The context fields the expression reads, in order of first use. */
  readonly freeVariables: string[];
  /** Runs the expression against `context` (its members are the
   * variables). Throws `XprError` for any error of the expression, a spent
   * budget, or a cancelled run. */
  evaluate(context?: { [key: string]: unknown } | null, options?: EvaluateOptions): JsonValue;
  /** Fuel units the last evaluation used (also when it failed). */
  readonly fuelUsed: number;
  /** Bytes the last evaluation charged to the memory budget. */
  readonly memoryUsed: number;
  /** The bytecode listing, one instruction a line. */
  disassemble(): string;
  /** Frees the program's WebAssembly memory now rather than when collected. */
  free(): void;
}

/** Parses and compiles `source`. Throws `XprError` (kind `"parse"`,
 * `"length"`, `"depth"`, a regex error, or `"input"` for bad limits). */
export function compile(source: string, limits?: Limits | null): Program;

/** Compiles and evaluates once. */
export function evaluate(
  source: string,
  context?: { [key: string]: unknown } | null,
  options?: EvaluateOptions & { limits?: Limits | null },
): JsonValue;

/** Every syntax error one pass tells apart, each with span, hint and the
 * expected tokens; `[]` when `source` parses. */
export function parse(source: string, limits?: Limits | null): Diagnostic[];

/** Compiles without running and reports errors and warnings (unknown
 * fields when `fields` is given, other languages' names, likely mistakes),
 * as `xpr check` does. */
export function check(
  source: string,
  options?: { limits?: Limits | null; fields?: string[] },
): CheckReport;

/** The language card (`xpr card`): XPR in brief, for a person or an LLM. */
export function card(): string;

/** The JavaScript string index of character position `chars` of `source`. */
export function utf16Index(source: string, chars: number): number;
