#!/usr/bin/env bash
# The Python package's tests, on what users install: makes a venv under
# target/ (the first time; needs PyPI), installs maturin, pytest, PyYAML,
# cloudpickle, pyarrow and pandas, builds the xpr-rs wheel with maturin into
# target/py-wheels, installs that wheel, runs pytest (xpr-python/tests:
# the conformance suites through Python, the API, threads, pickling,
# limits, host functions, NDJSON, Arrow).
#   PYTHON=python3.12 xpr-python/run_tests.sh   # another interpreter (>= 3.10)
#   xpr-python/run_tests.sh -k ndjson           # arguments go to pytest
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
venv="$CARGO_TARGET_DIR/py-venv"
wheels="$CARGO_TARGET_DIR/py-wheels"

if [ ! -x "$venv/bin/python" ]; then
    "${PYTHON:-python3}" -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check \
    "maturin>=1.16,<2" pytest pyyaml cloudpickle pyarrow pandas "dask[distributed]"

rm -rf "$wheels"
"$venv/bin/maturin" build --manifest-path xpr-python/Cargo.toml \
    --interpreter "$venv/bin/python" --out "$wheels"
"$venv/bin/python" -m pip install -q --disable-pip-version-check \
    --force-reinstall --no-deps "$wheels"/xpr_rs-*.whl

cd xpr-python
"$venv/bin/python" -m pytest -q tests "$@"
