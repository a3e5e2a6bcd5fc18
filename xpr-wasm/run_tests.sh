#!/usr/bin/env bash
# The npm package's tests, on what users get: builds the package
# (build.sh: the release WebAssembly and its glue into xpr-wasm/pkg),
# installs the test dependencies from package-lock.json (`npm ci`, when
# node_modules is missing or older than the lock), then runs `node --test`:
# the conformance suites through the package (with the Rust runner's
# counts to match), the package's API, and the playground in headless
# Chromium (/usr/bin/chromium, or XPR_CHROMIUM).
#   xpr-wasm/run_tests.sh                       # everything
#   xpr-wasm/run_tests.sh test/package.test.mjs  # some files
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"

bash xpr-wasm/build.sh

# The Rust runner's totals, for the conformance test to match.
counts="$(cargo run -q -p conformance 2>/dev/null | grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' | tail -n1 || true)"
export XPR_CONFORMANCE_COUNTS="$counts"
echo "Rust runner: ${counts:-(no counts)}"

cd xpr-wasm
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules ]; then
    npm ci --no-audit --no-fund
fi
if [ "$#" -eq 0 ]; then
    set -- test/
fi
node --test --test-reporter=spec "$@"
