// XPR for JavaScript: the npm package's entry point (an ES module). It loads
// the WebAssembly engine once, at import (top-level await), in Node.js from
// the file beside this one and in a browser by fetch, and wraps the engine's
// text interface (JSON in, JSON out) in JavaScript values and XprError.
// Types and documentation: index.d.ts.

import init, * as engine from "./xpr_wasm.js";

const wasmUrl = new URL("./xpr_wasm_bg.wasm", import.meta.url);
if (typeof process !== "undefined" && process.versions && process.versions.node) {
  const { readFile } = await import("node:fs/promises");
  await init({ module_or_path: await readFile(wasmUrl) });
} else {
  await init({ module_or_path: wasmUrl });
}

/** An XPR error: a syntax error, a type error, a spent budget, a cancelled run. */
export class XprError extends Error {
  constructor(d) {
    super(d.text ?? d.message);
    this.name = "XprError";
    this.kind = d.kind;
    this.span = d.span ?? null;
    this.position = d.position ?? (d.span ? d.span.start : null);
    this.hint = d.hint ?? null;
    this.expected = d.expected ?? [];
    this.detail = d.message;
  }
}

/** Rethrows what the engine threw: its errors are JSON text. */
function raise(e) {
  if (typeof e === "string") {
    throw new XprError(JSON.parse(e));
  }
  throw e;
}

function limitsText(limits) {
  return limits == null ? "" : JSON.stringify(limits);
}

// Seeds for random(), drawn from crypto.getRandomValues 256 at a time (one
// call costs microseconds; an evaluation of a small rule less than that).
const seeds = new Uint32Array(512);
let nextSeed = seeds.length;

function randomSeed() {
  if (nextSeed === seeds.length) {
    globalThis.crypto.getRandomValues(seeds);
    nextSeed = 0;
  }
  nextSeed += 2;
  return [seeds[nextSeed - 2], seeds[nextSeed - 1]];
}

/** A compiled expression. */
export class Program {
  #inner;
  /** The context names the program may look up (contextText). */
  #names = null;
  /** @internal */
  constructor(inner) {
    this.#inner = inner;
  }

  /** The expression's source text. */
  get source() {
    return this.#inner.source;
  }

  /** The context fields the expression reads, in order of first use. */
  get freeVariables() {
    return JSON.parse(this.#inner.freeVariables());
  }

  evaluate(context = {}, options = {}) {
    const { signal, seed } = options;
    if (signal && signal.aborted) {
      throw new XprError({
        kind: "cancelled",
        message: "Evaluation cancelled",
        text: "Evaluation cancelled",
        span: null,
        hint: "the AbortSignal was aborted before the run started",
      });
    }
    const text = this.#contextText(context);
    let hi, lo;
    if (seed == null) {
      [hi, lo] = randomSeed();
    } else if (Number.isSafeInteger(seed) && seed >= 0) {
      hi = Math.floor(seed / 0x100000000);
      lo = seed >>> 0;
    } else {
      const s = BigInt.asUintN(64, BigInt(seed));
      hi = Number(s >> 32n);
      lo = Number(s & 0xffffffffn);
    }
    let out;
    try {
      out = this.#inner.evaluate(text, hi, lo);
    } catch (e) {
      raise(e);
    }
    // null, booleans and numbers come as themselves, the rest as JSON text.
    return typeof out === "string" ? JSON.parse(out) : out;
  }

  /**
   * The context as JSON text. A record with many more members than the
   * program may look up is sent with only those (the engine's
   * context_names: the results are the same), so a wide record costs what
   * the expression reads, not its whole size.
   */
  #contextText(context) {
    if (context == null) return "";
    if (typeof context !== "object" || Array.isArray(context)) {
      const text = JSON.stringify(context);
      if (text === undefined) throw new TypeError("the context must be a JSON-like object");
      return text;
    }
    const names = (this.#names ??= JSON.parse(this.#inner.contextNames()));
    let members = 0;
    const wide = 2 * names.length + 8;
    for (const key in context) {
      if (++members > wide) break;
    }
    if (members <= wide || typeof context.toJSON === "function") {
      return JSON.stringify(context);
    }
    let text = "{";
    for (const name of names) {
      if (!Object.hasOwn(context, name)) continue;
      const value = JSON.stringify(context[name]);
      if (value === undefined) continue;
      text += `${text.length > 1 ? "," : ""}${JSON.stringify(name)}:${value}`;
    }
    return text + "}";
  }

  /** Fuel units the last evaluation used (also after it failed). */
  get fuelUsed() {
    return this.#inner.fuelUsed();
  }

  /** Bytes the last evaluation charged to the memory budget. */
  get memoryUsed() {
    return this.#inner.memoryUsed();
  }

  /** The bytecode listing, one instruction a line. */
  disassemble() {
    return this.#inner.disassemble();
  }

  /** Frees the engine's memory for this program now (else when collected). */
  free() {
    this.#inner.free();
  }
}

export function compile(source, limits) {
  try {
    return new Program(engine.compile(String(source), limitsText(limits)));
  } catch (e) {
    raise(e);
  }
}

export function evaluate(source, context, options = {}) {
  return compile(source, options.limits).evaluate(context, options);
}

export function parse(source, limits) {
  try {
    return JSON.parse(engine.parse(String(source), limitsText(limits))).map(diagnostic);
  } catch (e) {
    raise(e);
  }
}

export function check(source, options = {}) {
  let report;
  try {
    const fields = options.fields == null ? "" : JSON.stringify(options.fields);
    report = JSON.parse(engine.check(String(source), limitsText(options.limits), fields));
  } catch (e) {
    raise(e);
  }
  return {
    valid: report.valid,
    errors: report.errors.map(diagnostic),
    warnings: report.warnings.map(diagnostic),
    freeVariables: report.free_variables ?? null,
    functions: report.functions ?? null,
  };
}

function diagnostic(d) {
  const out = {
    kind: d.kind,
    message: d.message,
    text: d.text,
    span: d.span,
    hint: d.hint,
    expected: d.expected ?? [],
    severity: d.severity,
  };
  if ("name" in d) {
    out.name = d.name;
    out.suggestion = d.suggestion;
  }
  return out;
}

export function card() {
  return engine.card();
}

/**
 * The UTF-16 index (a JavaScript string index) of the character position
 * `chars` of `source`: XPR spans count characters (code points).
 */
export function utf16Index(source, chars) {
  let i = 0;
  let n = 0;
  for (const ch of source) {
    if (n === chars) return i;
    i += ch.length;
    n += 1;
  }
  return i;
}
