#!/usr/bin/env bash
# Builds the npm package into xpr-wasm/pkg (not published): the engine
# compiled for wasm32-unknown-unknown, its glue from wasm-bindgen-cli at
# exactly the version of the crate's pinned wasm-bindgen (installed into
# target/tools on first use), and the package's own index.js, index.d.ts
# and package.json. The glue is `--target web`: one ES module that runs in
# browsers and in Node.js 20 (index.js hands it the .wasm bytes there).
#
#   xpr-wasm/build.sh            # release build (what tests and bench use)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
target="${CARGO_TARGET_DIR:-$root/target}"
version="$(sed -n 's/^wasm-bindgen = "=\(.*\)"$/\1/p' "$here/Cargo.toml")"
tools="$root/target/tools"
bindgen="$tools/bin/wasm-bindgen"

if ! "$bindgen" --version 2>/dev/null | grep -qx "wasm-bindgen $version"; then
    echo "== installing wasm-bindgen-cli $version into $tools"
    # Not --locked: its lock file names a webpki-roots release crates.io
    # no longer serves (yanked), which --locked refuses. Only the
    # `wasm-bindgen` binary, without TLS (rustls and ring: only its test
    # runner downloads anything): 6 CPU-minutes on the 2-core machine.
    cargo install wasm-bindgen-cli --version "$version" --root "$tools" \
        --no-default-features --bin wasm-bindgen
fi

rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || true
CARGO_TARGET_DIR="$target" cargo build --manifest-path "$here/Cargo.toml" \
    --release --target wasm32-unknown-unknown

rm -rf "$here/pkg"
"$bindgen" --target web --out-dir "$here/pkg" --out-name xpr_wasm \
    "$target/wasm32-unknown-unknown/release/xpr_wasm.wasm"
cp "$here/js/index.js" "$here/js/index.d.ts" "$here/js/package.json" "$here/pkg/"
echo "built $here/pkg ($(du -k "$here/pkg/xpr_wasm_bg.wasm" | cut -f1) KiB of WebAssembly)"
