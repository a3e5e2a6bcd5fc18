// The package's TypeScript declarations: tsc --strict type-checks a file
// that uses the documented API (test/types/usage.ts) against pkg/index.d.ts.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const tsc = join(here, "..", "node_modules", "typescript", "bin", "tsc");

test("index.d.ts type-checks the documented uses", () => {
  const dir = mkdtempSync(join(tmpdir(), "xpr-types-"));
  try {
    const config = {
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: "es2022",
        module: "nodenext",
        moduleResolution: "nodenext",
        lib: ["es2022", "dom"],
        types: [],
        baseUrl: ".",
        paths: { "xpr-wasm": [join(here, "..", "pkg", "index.d.ts")] },
      },
      files: [join(here, "types", "usage.ts")],
    };
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(config));
    let output = "";
    try {
      execFileSync(process.execPath, [tsc, "-p", dir], { encoding: "utf8" });
    } catch (e) {
      output = `${e.stdout}${e.stderr}`;
    }
    assert.equal(output, "");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
