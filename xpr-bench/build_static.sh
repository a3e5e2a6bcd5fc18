#!/usr/bin/env bash
# Builds the `xpr` binary the benchmarks run: release, cargo feature
# `columnar`, with glibc linked in (a static-pie executable). It starts
# without the dynamic loader: no shared libraries to map and no symbols to
# look up, about 0.4 ms less CPU a run here (docs/decisions.md, "A static
# binary for the benchmarks"); address-space layout randomisation is kept.
# Needs glibc's static archives (Debian: libc6-dev, already there for any C
# build). Prints the binary's path.
#
# `--target` keeps the flag off build scripts and proc-macros (which cannot
# be linked statically), so the build has a directory of its own under
# target/ and compiles the dependencies once more.
set -euo pipefail
cd "$(dirname "$0")/.."
triple=$(rustc -vV | sed -n 's/^host: //p')
RUSTFLAGS="-C target-feature=+crt-static" \
  cargo build --release --target "$triple" -p xpr-cli --features columnar >&2
echo "$PWD/target/$triple/release/xpr"
