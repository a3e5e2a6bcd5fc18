#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 60) each. The text targets
# (parse, compile, eval) are seeded with the expressions of all
# conformance suites and with fuzz/seeds (regex and large-string
# expressions, regression reproducers); run generates its own; load is
# seeded with the conformance cases as stored programs.
# Needs cargo-fuzz; works on the stable toolchain with `--sanitizer none`
# (the code has no unsafe).
# Usage: fuzz/run.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-60}"
if ! command -v cargo-fuzz >/dev/null 2>&1; then
  cargo install --locked cargo-fuzz
fi
seeds="corpus/seeds"
stored="corpus/stored-seeds"
(cd .. && cargo run -q -p conformance -- --seeds "fuzz/$seeds") || exit 1
(cd .. && cargo run -q -p conformance -- --stored-seeds "fuzz/$stored") || exit 1
cargo fuzz build --sanitizer none
for target in parse compile eval run load; do
  mkdir -p "corpus/$target"
  case "$target" in
    run) dirs=("corpus/$target") ;;
    load) dirs=("corpus/$target" "$stored") ;;
    *) dirs=("corpus/$target" "$seeds" seeds) ;;
  esac
  # eval and run have small budgets: an execution takes milliseconds, so
  # one that takes seconds is work out of proportion to its fuel.
  case "$target" in eval | run | load) timeout=2 ;; *) timeout=5 ;; esac
  echo "== fuzz $target for ${seconds}s"
  cargo fuzz run --sanitizer none "$target" "${dirs[@]}" -- \
    -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=1024 -print_final_stats=1 2>&1 \
    | grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::average_exec_per_sec|==[0-9]+== ERROR|SUMMARY|thread .* panicked|memory allocation of)' || true
  # A crash leaves an artifact and a non-zero exit above; fail loudly.
  if compgen -G "artifacts/$target/*" >/dev/null; then
    echo "fuzz target $target found a failure:"; ls "artifacts/$target"; exit 1
  fi
done
