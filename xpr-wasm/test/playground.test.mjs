// The playground in headless Chromium (Debian's chromium, driven by
// playwright-core), served by serve.mjs: an expression gives its value, a
// broken one a caret under its span, a hostile one the budget error, and
// the page still answers afterwards. XPR_CHROMIUM names another browser
// binary; without one the test fails unless XPR_SKIP_BROWSER=1.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { serve } from "../serve.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const executablePath = process.env.XPR_CHROMIUM ?? "/usr/bin/chromium";
const skip = !existsSync(executablePath) && process.env.XPR_SKIP_BROWSER === "1";

let server, browser, page, profile;
const pageErrors = [];

before(async () => {
  if (skip) return;
  server = await serve(root);
  profile = mkdtempSync(join(tmpdir(), "xpr-chromium-"));
  // launchPersistentContext: a new, empty profile of our own.
  browser = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  page = await browser.newPage();
  page.on("pageerror", (e) => pageErrors.push(e));
  await page.goto(`http://127.0.0.1:${server.address().port}/playground/`);
  await page.waitForSelector("body[data-ready='1']");
});

after(async () => {
  await browser?.close();
  server?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

async function evaluate(expr) {
  await page.fill("#expr", expr);
  await page.click("#run");
  return page.textContent("#status");
}

test("the page starts with the first example evaluated and the card", { skip }, async () => {
  assert.equal(await page.textContent("#status"), "ok");
  assert.deepEqual(JSON.parse(await page.textContent("#result")), ["desk", "lamp"]);
  assert.match(await page.textContent("#card"), /filter/);
  assert.match(await page.textContent("#usage"), /fuel [\d,]+ units · memory [\d,]+ bytes/);
  assert.match(await page.textContent("#disasm"), /\S/);
});

test("an expression gives its value", { skip }, async () => {
  await page.fill("#context", '{"price": 20, "qty": 3}');
  assert.equal(await evaluate("price * qty + 1"), "ok");
  assert.equal(await page.textContent("#result"), "61");
  assert.equal(await page.isHidden("#error"), true);
});

test("a broken expression shows a caret under its span", { skip }, async () => {
  const src = "items.filter(x => x.price > ).map(x => x.name)";
  assert.equal(await evaluate(src), "error");
  assert.equal(await page.isVisible("#error"), true);
  assert.match(await page.textContent("#error-text"), /^parse error: Unexpected token '\)' at position 28/);
  assert.equal(await page.textContent("#caret"), `${src}\n${" ".repeat(28)}^`);
  assert.equal(await page.textContent("#result"), "");
});

test("a hostile expression meets its budget and the page still answers", { skip }, async () => {
  assert.equal(await evaluate("range(0, 1e9).map(x => x)"), "error");
  assert.match(await page.textContent("#error-text"), /^memory error: Memory limit exceeded/);
  assert.equal(await page.textContent("#caret"), `range(0, 1e9).map(x => x)\n${"^".repeat(13)}`);
  // A loop that spends its fuel rather than its memory.
  await page.fill("#context", "{}");
  assert.equal(await evaluate("range(2000).map(i => range(2000).reduce((a, x) => a + x, 0)).length"), "error");
  assert.match(await page.textContent("#error-text"), /^(fuel|timeout) error/);
  // The page is still responsive: the next expression is answered.
  assert.equal(await evaluate("2 + 2"), "ok");
  assert.equal(await page.textContent("#result"), "4");
  assert.deepEqual(pageErrors, []);
});

test("picking an example evaluates it", { skip }, async () => {
  await page.selectOption("#example", { label: "A rule" });
  assert.equal(await page.textContent("#status"), "ok");
  assert.equal(await page.textContent("#result"), "true");
});
