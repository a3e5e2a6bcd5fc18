// The conformance suites through the npm package, as the Rust runner
// (`cargo run -p conformance`) runs them: the project's own cases
// (conformance/cases), the official suite (../shared/conformance/xpr-v0.5)
// and the extra cases (../shared/cases), no time limits, random seed
// 0x5eed. Every case passes but those in conformance/known-failures.txt,
// which must fail (the Rust runner's rule, so the counts are its counts);
// with XPR_CONFORMANCE_COUNTS set to the Rust runner's last line
// (`N passed, M failed, K skipped`), the counts must be that line.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";
import { compile, XprError } from "../pkg/index.js";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const shared = join(repo, "..", "shared");
const dirs = [join(repo, "conformance", "cases")];
for (const sub of ["conformance/xpr-v0.5", "cases"]) {
  if (existsSync(join(shared, sub))) dirs.push(join(shared, sub));
}

function suites() {
  const out = [];
  for (const dir of dirs) {
    const files = readdirSync(dir)
      .filter((f) => f.endsWith(".yaml") || f.endsWith(".yml"))
      .sort();
    for (const f of files) {
      out.push(parseYaml(readFileSync(join(dir, f), "utf8")));
    }
  }
  return out;
}

/** Equality as the Rust runner's: numbers as doubles, object key order ignored. */
function same(a, b) {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
    return false;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    return a.length === b.length && a.every((x, i) => same(x, b[i]));
  }
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
}

/** Runs one case: null when it passed, else why not. */
function run(c) {
  let got;
  try {
    got = compile(c.expression, { timeoutMs: null }).evaluate(c.context ?? {}, { seed: 0x5eed });
  } catch (e) {
    if (!(e instanceof XprError)) throw e;
    if ("error" in c) {
      return e.message.includes(c.error)
        ? null
        : `expected an error containing ${JSON.stringify(c.error)}, got error ${JSON.stringify(e.message)}`;
    }
    return `unexpected error ${JSON.stringify(e.message)}`;
  }
  if ("error" in c) {
    return `expected an error containing ${JSON.stringify(c.error)}, got ${JSON.stringify(got)}`;
  }
  return same(got, c.expected ?? null)
    ? null
    : `expected ${JSON.stringify(c.expected)}, got ${JSON.stringify(got)}`;
}

function knownFailures() {
  const text = readFileSync(join(repo, "conformance", "known-failures.txt"), "utf8");
  const known = new Set();
  for (let line of text.split("\n")) {
    line = line.trim();
    if (!line || line.startsWith("#")) continue;
    const body = line.split("#")[0];
    const at = body.indexOf(" / ");
    if (at >= 0) known.add(`${body.slice(0, at).trim()} / ${body.slice(at + 3).trim()}`);
  }
  return known;
}

test("the conformance suites pass through the npm package as through Rust", () => {
  if (process.env.XPR_REQUIRE_SHARED === "1") {
    assert.equal(dirs.length, 3, `the shared suites are missing under ${shared}`);
  }
  const counts = { passed: 0, failed: 0, skipped: 0 };
  const failures = new Map();
  for (const s of suites()) {
    for (const c of s.tests ?? []) {
      if (c.skip === true) {
        counts.skipped += 1;
        continue;
      }
      const why = run(c);
      if (why === null) {
        counts.passed += 1;
      } else {
        counts.failed += 1;
        failures.set(`${s.suite} / ${c.name}`, `${c.expression}: ${why}`);
      }
    }
  }
  const line = `${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`;
  console.log(`npm package: ${line}`);
  const known = knownFailures();
  const unexpected = [...failures].filter(([k]) => !known.has(k));
  const fixed = [...known].filter((k) => !failures.has(k));
  assert.deepEqual(unexpected, [], "failures not in conformance/known-failures.txt");
  assert.deepEqual(fixed, [], "listed as known failures but passed");
  assert.ok(counts.passed > 1000, line);
  const rust = process.env.XPR_CONFORMANCE_COUNTS;
  if (rust) assert.equal(line, rust.trim());
});
