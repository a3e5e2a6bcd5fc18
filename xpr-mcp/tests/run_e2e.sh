#!/usr/bin/env bash
# End-to-end test of xpr-mcp with the official Python MCP SDK as the client
# (xpr-mcp/tests/e2e_client.py): builds the server (debug), makes a venv
# under target/ with the pinned SDK (reused while the pin matches), and runs
# the client against the server over stdio. Needs python3 with venv, and
# network access the first time (PyPI). Ends with `N passed, M failed`.
#
#   bash xpr-mcp/tests/run_e2e.sh
#
# XPR_MCP_PY_SDK overrides the pin (e.g. 1.30.0, the version
# langchain-mcp-adapters 0.3 installs; both were verified).
set -euo pipefail
cd "$(dirname "$0")/../.."

sdk="${XPR_MCP_PY_SDK:-2.3.0}"
target="${CARGO_TARGET_DIR:-target}"
venv="$target/mcp-venv"

if ! "$venv/bin/python" - "$sdk" 2>/dev/null <<'PY'
import sys, importlib.metadata as m
sys.exit(m.version("mcp") != sys.argv[1])
PY
then
    echo "== e2e: venv $venv with mcp==$sdk"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "mcp==$sdk"
fi

echo "== e2e: cargo build (xpr-mcp, a workspace of its own, into $target)"
CARGO_TARGET_DIR="$target" cargo build --quiet --manifest-path xpr-mcp/Cargo.toml

echo "== e2e: Python MCP SDK $sdk against $target/debug/xpr-mcp"
"$venv/bin/python" xpr-mcp/tests/e2e_client.py "$target/debug/xpr-mcp"
