#!/usr/bin/env bash
# Every test of the project, in one command (README: "Test"):
#  1. the workspace's Rust tests (core, library, CLI, conformance suites);
#  2. the MCP server's own workspace (xpr-mcp: rmcp and tokio stay out of
#     the core's build): its Rust tests, then the end-to-end test with the
#     official Python MCP SDK as the client (makes a venv under target/
#     the first time: needs PyPI);
#  3. columnar evaluation over Arrow (xpr-arrow, a workspace of its own:
#     arrow stays out of the core's build): its Rust tests; then `xpr run`
#     over Parquet and Arrow IPC (xpr-cli's feature `columnar`, sharing
#     the target dir and so the arrow build);
#  4. the Python package's workspace (xpr-python: pyo3 stays out of the
#     core's build): builds the xpr-rs wheel with maturin, installs it in
#     a venv under target/ (made the first time: needs PyPI) and runs
#     pytest, the conformance suites through Python included;
#  5. the npm package (xpr-wasm, a workspace of its own: wasm-bindgen
#     stays out of the core's build): its Rust tests; then the package
#     built for WebAssembly and tested under `node --test`: the
#     conformance suites through it (the Rust runner's counts), its API,
#     and the playground in headless Chromium (needs /usr/bin/chromium,
#     npm, and crates.io for wasm-bindgen-cli the first time);
#  6. the conformance report (pass counts of every suite).
# The shared suites (../shared) are read when present; with
# XPR_REQUIRE_SHARED=1 their absence is a failure.
set -euo pipefail
cd "$(dirname "$0")"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"

echo "== cargo test --workspace"
cargo test --workspace

echo "== xpr-mcp: cargo test"
cargo test --manifest-path xpr-mcp/Cargo.toml

echo "== xpr-mcp: end to end (official Python MCP SDK as the client)"
bash xpr-mcp/tests/run_e2e.sh

echo "== xpr-arrow: cargo test"
cargo test --manifest-path xpr-arrow/Cargo.toml

echo "== xpr-cli --features columnar: Parquet and Arrow IPC in xpr run"
cargo test -p xpr-cli --features columnar --test cli cli_columnar
# xpr's own Parquet page decoding against parquet's reader, and damaged files.
cargo test -p xpr-cli --features columnar --bin xpr columnar::

echo "== xpr-python: the wheel, then pytest"
bash xpr-python/run_tests.sh

echo "== xpr-wasm: cargo test"
cargo test --manifest-path xpr-wasm/Cargo.toml

echo "== xpr-wasm: the npm package under node --test (conformance, API, playground in Chromium)"
bash xpr-wasm/run_tests.sh

echo "== conformance report"
cargo run -q -p conformance
