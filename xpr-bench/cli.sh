#!/usr/bin/env bash
# Measures the xpr command-line tool against jq on one NDJSON file (issue 7):
#
#   xpr run --jobs 1 --filter 'delay > 60 && distance > 1000' FILE
#   xpr run --jobs 2 --filter 'delay > 60 && distance > 1000' FILE
#   jq -c 'select(.delay > 60 and .distance > 1000)' FILE      (when jq is installed)
#
# and the cost of the audit log's per-record lines (issue 14): the filter
# above and a transform, each with `--audit LOG` alone (a program and a
# summary line) and with `--audit LOG --audit-records` (a line per record),
# against the same command without them, as ratios of CPU time: the six
# commands take turns for RUNS rounds, and the floors check the median of
# the rounds' ratios (each ratio's two runs seconds apart).
#
# FILE is ../shared/data/flights-20k.ndjson repeated to 400,000 lines in a
# temporary directory (generated flights when the file is absent). For each
# command: wall time, user and system CPU time, cores used, records per
# second and per CPU-second, peak RSS, and the load average before and after
# (the machine is shared: compare CPU times, not wall times). Then the floors
# of issue 7 and a check that every command kept the same number of lines.
#
# With the DuckDB CLI on PATH (`pip install duckdb-cli`) or named by
# DUCKDB: W1 the filter above, W2 a projection, W3 a string transform and
# W4 a group-by sum, xpr (default --jobs) against DuckDB on the same file,
# with the floors of issue 18 (DuckDB uses >= 1.5x xpr's CPU time, and
# more wall time).
#
# The other tools of issue 18's table, each on W1-W4 when installed (jq;
# jaq, on PATH or named by JAQ; Miller's mlr; Polars, through
# xpr-bench/polars_wl.py run by POLARS_PYTHON, a Python with polars): their
# CPU and wall time (medians of PEER_RUNS runs, default RUNS) and their CPU
# time over xpr's on the same workload. Their output is theirs: W4 in jq and
# jaq is one object (a streaming `reduce`), Miller names the sum
# `distance_sum`.
#
# Usage: xpr-bench/cli.sh            (from anywhere)
# Environment: LINES_TOTAL (default 400000), RUNS (default 1; each figure's
# median over the runs is reported when > 1), XPR_BIN (skip the build, use this
# binary), KEEP=1 (keep the temporary directory).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
lines_total=${LINES_TOTAL:-400000}
runs=${RUNS:-1}
expr='delay > 60 && distance > 1000'
transform='{route: origin + "-" + destination, late: delay > 60, hours: distance / 500}'
jq_filter='select(.delay > 60 and .distance > 1000)'
source_file="$root/../shared/data/flights-20k.ndjson"

if [[ -n "${XPR_BIN:-}" ]]; then
    xpr=$XPR_BIN
else
    echo "building xpr (release)..." >&2
    (cd "$root" && cargo build --release -p xpr-cli --bin xpr --quiet)
    xpr="${CARGO_TARGET_DIR:-$root/target}/release/xpr"
fi
[[ -x "$xpr" ]] || { echo "cli.sh: no xpr binary at $xpr" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/xpr-cli-bench.XXXXXX")
if [[ "${KEEP:-0}" != 1 ]]; then
    trap 'rm -rf "$tmp"' EXIT
fi
input="$tmp/flights-$lines_total.ndjson"

# The input: the real records repeated, else deterministic generated ones.
if [[ -r "$source_file" ]]; then
    n=$(wc -l < "$source_file")
    reps=$(( (lines_total + n - 1) / n ))
    # `head` closes the pipe early on purpose: not an error.
    set +o pipefail
    for ((i = 0; i < reps; i++)); do cat "$source_file"; done | head -n "$lines_total" > "$input"
    set -o pipefail
    origin="flights-20k.ndjson repeated"
else
    awk -v n="$lines_total" 'BEGIN {
        split("ATL DFW LAX ORD SFO JFK SEA DEN", ap, " "); s = 2001;
        for (i = 0; i < n; i++) {
            s = (s * 1103515245 + 12345) % 2147483648; d = s % 240 - 30;
            s = (s * 1103515245 + 12345) % 2147483648; m = 100 + s % 2500;
            printf "{\"date\":\"2001/01/%02d %02d:%02d\",\"delay\":%d,\"distance\":%d,\"origin\":\"%s\",\"destination\":\"%s\"}\n",
                1 + i % 28, i % 24, i % 60, d, m, ap[1 + i % 8], ap[1 + (i * 3) % 8];
        }
    }' > "$input"
    origin="generated (flights-20k.ndjson not found)"
fi
records=$(wc -l < "$input")
bytes=$(wc -c < "$input")

have_gnu_time=0
if /usr/bin/time -f '%e' -o /dev/null true 2>/dev/null; then have_gnu_time=1; fi

# measure NAME CMD...: runs CMD (stdout to $tmp/NAME.out) RUNS times and
# keeps the run with the median CPU time: sets WALL USER SYS RSS_KB LOAD_BEFORE LOAD_AFTER.
declare -A WALL USER SYS RSS LOAD_BEFORE LOAD_AFTER OUT_LINES
declare -A SAMPLES
measure() {
    local name=$1; shift
    local results=() r
    local n=$runs
    # ONCE=1: one run, added to the runs kept for NAME so far (the audit
    # cases take turns, so that load on the machine hits them alike).
    if [[ "${ONCE:-0}" == 1 ]]; then n=1; fi
    for ((r = 0; r < n; r++)); do
        local before after
        # Each run starts a new audit log (the audit cases append to it).
        rm -f "$tmp/audit.ndjson"
        before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
        # bash's `time` for wall and CPU time to the millisecond (GNU time
        # rounds to 10 ms), GNU time inside it for the peak RSS.
        local TIMEFORMAT='%3R %3U %3S'
        if (( have_gnu_time )); then
            { time /usr/bin/time -f '%M' -o "$tmp/$name.rss" "$@" < "$input" > "$tmp/$name.out" 2> "$tmp/$name.err"; } 2> "$tmp/$name.time"
            read -r m < "$tmp/$name.rss"
        else
            { time "$@" < "$input" > "$tmp/$name.out" 2> "$tmp/$name.err"; } 2> "$tmp/$name.time"
            m=-1
        fi
        read -r w u s < "$tmp/$name.time"
        after=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
        results+=("$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f", u + s }') $w $u $s $m $before|$after")
    done
    if [[ "${ONCE:-0}" == 1 ]]; then
        SAMPLES[$name]+="${results[0]};"
        IFS=';' read -r -a results <<< "${SAMPLES[$name]%;}"
    fi
    local runs=${#results[@]}
    # Each figure's median over the runs, taken separately (a run slowed
    # by other work on the machine moves one wall time, not the result).
    median() { printf '%s\n' "${results[@]}" | awk -v k="$1" '{ print $k }' | sort -g | sed -n "$(( (runs + 1) / 2 ))p"; }
    WALL[$name]=$(median 2); USER[$name]=$(median 3); SYS[$name]=$(median 4); RSS[$name]=$(median 5)
    local rest
    rest=$(cut -d' ' -f6- <<< "${results[$(( runs - 1 ))]}")
    LOAD_BEFORE[$name]=${rest%%|*}; LOAD_AFTER[$name]=${rest##*|}
    OUT_LINES[$name]=$(wc -l < "$tmp/$name.out")
}

report() {
    local name=$1
    awk -v name="$name" -v w="${WALL[$name]}" -v u="${USER[$name]}" -v s="${SYS[$name]}" \
        -v m="${RSS[$name]}" -v n="$records" -v out="${OUT_LINES[$name]}" \
        -v lb="${LOAD_BEFORE[$name]}" -v la="${LOAD_AFTER[$name]}" 'BEGIN {
        cpu = u + s;
        rss = (m < 0) ? "n/a" : sprintf("%.1f MB", m / 1024);
        printf "%-8s wall %6.3f s  user %6.3f s  sys %5.3f s  cpu %6.3f s  cores %4.2f  %6.3f M rec/s  %6.3f M rec/CPU-s  peak RSS %9s  out %d lines  load %s -> %s\n",
            name, w, u, s, cpu, (w > 0 ? cpu / w : 0), (w > 0 ? n / w / 1e6 : 0), (cpu > 0 ? n / cpu / 1e6 : 0), rss, out, lb, la;
    }'
}

echo "input: $records records, $bytes bytes ($origin); runs per command: $runs"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ //') ($(nproc) CPUs); $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "xpr: $xpr"
echo

measure xpr_j1 "$xpr" run --quiet --jobs 1 --filter "$expr"
report xpr_j1
measure xpr_j2 "$xpr" run --quiet --jobs 2 --filter "$expr"
report xpr_j2
have_jq=0
if command -v jq > /dev/null; then
    have_jq=1
    measure jq jq -c "$jq_filter"
    report jq
    echo "         ($(jq --version))"
else
    echo "jq: not measured (jq is not installed)"
fi
echo

status=0
# Outputs agree: the same number of lines; xpr's are byte-identical across --jobs.
if [[ "${OUT_LINES[xpr_j1]}" != "${OUT_LINES[xpr_j2]}" ]] || ! cmp -s "$tmp/xpr_j1.out" "$tmp/xpr_j2.out"; then
    echo "MISMATCH: xpr --jobs 1 and --jobs 2 outputs differ"; status=1
fi
if (( have_jq )) && [[ "${OUT_LINES[xpr_j1]}" != "${OUT_LINES[jq]}" ]]; then
    echo "MISMATCH: xpr kept ${OUT_LINES[xpr_j1]} lines, jq ${OUT_LINES[jq]}"; status=1
fi
if (( status == 0 )); then
    echo "outputs agree: ${OUT_LINES[xpr_j1]} lines kept by every command"
fi
for name in xpr_j1 xpr_j2; do
    if [[ -s "$tmp/$name.err" ]]; then echo "$name stderr:"; head -n 5 "$tmp/$name.err"; fi
done

# The audit log (issue 14): one worker, so that CPU time compares.
echo
echo "Audit log (--jobs 1; 'audit': --audit LOG, 'records': --audit LOG --audit-records):"
audit=(--audit "$tmp/audit.ndjson")
# The six commands take turns, RUNS rounds; each round's CPU-time ratios
# (with / without) are kept, and their median is what the floors check:
# the two runs of a ratio are seconds apart, under about the same load.
declare -A RATIOS
for ((round = 0; round < runs; round++)); do
    ONCE=1 measure filt "$xpr" run --quiet --jobs 1 --filter "$expr"
    ONCE=1 measure filt_audit "$xpr" run --quiet --jobs 1 --filter "${audit[@]}" "$expr"
    ONCE=1 measure filt_rec "$xpr" run --quiet --jobs 1 --filter "${audit[@]}" --audit-records "$expr"
    audit_lines=$(wc -l < "$tmp/audit.ndjson")
    ONCE=1 measure tran "$xpr" run --quiet --jobs 1 "$transform"
    ONCE=1 measure tran_audit "$xpr" run --quiet --jobs 1 "${audit[@]}" "$transform"
    ONCE=1 measure tran_rec "$xpr" run --quiet --jobs 1 "${audit[@]}" --audit-records "$transform"
    for pair in filt_audit:filt filt_rec:filt tran_audit:tran tran_rec:tran; do
        with=${pair%%:*}; without=${pair##*:}
        last() { local s=${SAMPLES[$1]%;}; s=${s##*;}; awk -v x="$s" 'BEGIN { split(x, f, " "); print f[1] }'; }
        RATIOS[$with]+="$(awk -v a="$(last "$with")" -v b="$(last "$without")" 'BEGIN { print (b > 0 ? a / b : 0) }') "
    done
done
for name in filt filt_audit filt_rec tran tran_audit tran_rec; do report "$name"; done
for name in filt_audit filt_rec; do
    if ! cmp -s "$tmp/xpr_j1.out" "$tmp/$name.out"; then echo "MISMATCH: $name output differs from xpr_j1"; status=1; fi
done
for name in tran_audit tran_rec; do
    if ! cmp -s "$tmp/tran.out" "$tmp/$name.out"; then echo "MISMATCH: $name output differs from tran"; status=1; fi
done
if [[ "$audit_lines" != $(( records + 2 )) ]]; then
    echo "MISMATCH: --audit-records wrote $audit_lines lines for $records records (expected one each, a program and a summary line)"; status=1
fi

# DuckDB (issue 18): W1-W4 with xpr's default --jobs against the DuckDB CLI
# reading the same file (`read_json_auto`, results COPYed to stdout as JSON),
# the two commands of a workload back to back, RUNS rounds; the floors
# check the median of the rounds' ratios (DuckDB / xpr, CPU and wall).
# The workload is `wl`: `measure` sets `w`.
duckdb_bin=${DUCKDB:-$(command -v duckdb || true)}
declare -A DUCK_SQL XPR_ARGS
XPR_ARGS[w1]="--filter|$expr"
XPR_ARGS[w2]='|{route: origin + "-" + destination, late: delay > 60}'
XPR_ARGS[w3]='|origin.lower() + " -> " + destination.lower()'
XPR_ARGS[w4]='--group-by origin --agg|total: sum(distance)'
from="read_json_auto('$input', format='newline_delimited')"
DUCK_SQL[w1]="select * from $from where delay > 60 and distance > 1000"
DUCK_SQL[w2]="select origin || '-' || destination as route, delay > 60 as late from $from"
DUCK_SQL[w3]="select lower(origin) || ' -> ' || lower(destination) as s from $from"
DUCK_SQL[w4]="select origin, sum(distance) as total from $from group by origin"
declare -A DUCK_CPU DUCK_WALL
if [[ -n "$duckdb_bin" ]]; then
    echo
    echo "Against DuckDB ($("$duckdb_bin" --version | cut -d' ' -f1); xpr with its default --jobs; medians of $runs rounds' ratios):"
    for ((round = 0; round < runs; round++)); do
        for wl in w1 w2 w3 w4; do
            flags=${XPR_ARGS[$wl]%%|*}
            # shellcheck disable=SC2086 # the flags are words
            ONCE=1 measure "x_$wl" "$xpr" run --quiet $flags "${XPR_ARGS[$wl]#*|}"
            ONCE=1 measure "d_$wl" "$duckdb_bin" -c "COPY (${DUCK_SQL[$wl]}) TO '/dev/stdout' (FORMAT json)"
            last() { local s=${SAMPLES[$1]%;}; s=${s##*;}; awk -v x="$s" -v k="$2" 'BEGIN { split(x, f, " "); print f[k] }'; }
            DUCK_CPU[$wl]+="$(awk -v a="$(last "d_$wl" 1)" -v b="$(last "x_$wl" 1)" 'BEGIN { print (b > 0 ? a / b : 0) }') "
            DUCK_WALL[$wl]+="$(awk -v a="$(last "d_$wl" 2)" -v b="$(last "x_$wl" 2)" 'BEGIN { print (b > 0 ? a / b : 0) }') "
        done
    done
    for wl in w1 w2 w3 w4; do
        report "x_$wl"; report "d_$wl"
        if [[ "${OUT_LINES[d_$wl]}" != "${OUT_LINES[x_$wl]}" ]]; then
            echo "MISMATCH: $wl: xpr wrote ${OUT_LINES[x_$wl]} lines, DuckDB ${OUT_LINES[d_$wl]}"; status=1
        fi
    done
else
    echo
    echo "DuckDB: not measured (no duckdb on PATH; pip install duckdb-cli, or set DUCKDB)"
fi

# The other tools (issue 18's table), workload by workload.
declare -A PEER
jaq_bin=${JAQ:-$(command -v jaq || true)}
polars_py=${POLARS_PYTHON:-}
if [[ -n "$polars_py" ]] && ! "$polars_py" -c 'import polars' 2> /dev/null; then polars_py=""; fi
peer_runs=${PEER_RUNS:-$runs}
jq_w=(
    'select(.delay > 60 and .distance > 1000)'
    '{route: (.origin + "-" + .destination), late: (.delay > 60)}'
    '(.origin | ascii_downcase) + " -> " + (.destination | ascii_downcase)'
)
peer() { # NAME WORKLOAD CMD...: measured, then its CPU time over xpr's
    local name=$1 wl=$2; shift 2
    runs=$peer_runs measure "${name}_$wl" "$@"
    PEER[${name}_$wl]=$(awk -v u="${USER[${name}_$wl]}" -v s="${SYS[${name}_$wl]}" 'BEGIN { printf "%.3f", u + s }')
}
echo
echo "The other tools (medians of $peer_runs runs; CPU time over xpr's on the same workload):"
for i in 0 1 2 3; do
    wl=w$((i + 1))
    # jq and jaq take the same programs.
    for tool in "jq:$(command -v jq || true)" "jaq:$jaq_bin"; do
        bin=${tool#*:}
        [[ -n "$bin" ]] || continue
        if (( i < 3 )); then
            peer "${tool%%:*}" "$wl" "$bin" -c "${jq_w[$i]}"
        else
            peer "${tool%%:*}" "$wl" "$bin" -c -n 'reduce inputs as $r ({}; .[$r.origin] += $r.distance)'
        fi
    done
    if command -v mlr > /dev/null; then
        case $wl in
            w1) peer mlr "$wl" mlr --ijsonl --ojsonl filter '$delay > 60 && $distance > 1000' ;;
            w2) peer mlr "$wl" mlr --ijsonl --ojsonl put '$route = $origin . "-" . $destination; $late = $delay > 60' then cut -o -f route,late ;;
            w3) peer mlr "$wl" mlr --ijsonl --ojsonl put '$s = tolower($origin) . " -> " . tolower($destination)' then cut -f s ;;
            w4) peer mlr "$wl" mlr --ijsonl --ojsonl stats1 -a sum -f distance -g origin ;;
        esac
    fi
    if [[ -n "$polars_py" ]]; then peer polars "$wl" "$polars_py" "$here/polars_wl.py" "$wl" "$input"; fi
done
printf '| workload | xpr CPU |'
for t in duckdb jq jaq mlr polars; do printf ' %s CPU (x xpr) |' "$t"; done
echo
for wl in w1 w2 w3 w4; do
    xc=$(awk -v u="${USER[x_$wl]:-0}" -v s="${SYS[x_$wl]:-0}" 'BEGIN { printf "%.3f", u + s }')
    printf '| %s | %s s |' "${wl^^}" "$xc"
    for t in d jq jaq mlr polars; do
        if [[ $t == d ]]; then c=$(awk -v u="${USER[d_$wl]:-}" -v s="${SYS[d_$wl]:-}" 'BEGIN { if (u == "") print ""; else printf "%.3f", u + s }'); else c=${PEER[${t}_$wl]:-}; fi
        if [[ -z "$c" ]]; then printf ' - |'; else awk -v c="$c" -v x="$xc" 'BEGIN { printf " %.3f s (%.1fx) |", c, (x > 0 ? c / x : 0) }'; fi
    done
    echo
done
for t in jq jaq mlr polars; do
    for wl in w1 w2 w3 w4; do
        [[ -n "${PEER[${t}_$wl]:-}" ]] && report "${t}_$wl"
    done
done

# Floors (issue 7), on CPU time because the machine is shared.
cpu() { awk -v u="${USER[$1]}" -v s="${SYS[$1]}" 'BEGIN { printf "%.4f", u + s }'; }
floor() { # label value op limit
    awk -v l="$1" -v v="$2" -v op="$3" -v lim="$4" 'BEGIN {
        ok = (op == "<=") ? (v <= lim) : (v >= lim);
        printf "  %s  %s: %.2f (floor %s %s)\n", ok ? "PASS" : "FAIL", l, v, op, lim }'
}
echo
echo "Floors (issue 7; issue 14 for the audit log):"
c1=$(cpu xpr_j1); c2=$(cpu xpr_j2)
if (( have_jq )); then
    cj=$(cpu jq)
    floor "jq CPU time / xpr --jobs 1 CPU time" "$(awk -v a="$cj" -v b="$c1" 'BEGIN { print (b > 0 ? a / b : 0) }')" ">=" 5
    floor "jq wall time / xpr --jobs 1 wall time" "$(awk -v a="${WALL[jq]}" -v b="${WALL[xpr_j1]}" 'BEGIN { print (b > 0 ? a / b : 0) }')" ">=" 5
else
    echo "  -     jq / xpr: not measured (jq is not installed)"
fi
floor "xpr --jobs 2 cores used (CPU time / wall time)" "$(awk -v c="$c2" -v w="${WALL[xpr_j2]}" 'BEGIN { print (w > 0 ? c / w : 0) }')" ">=" 1.7
floor "xpr --jobs 2 records per CPU-second / --jobs 1" "$(awk -v a="$c1" -v b="$c2" 'BEGIN { print (b > 0 ? a / b : 0) }')" ">=" 0.9
# Issue 14: per-record audit lines cost at most 10 % of throughput.
ratio_list() { tr ' ' '\n' <<< "${RATIOS[$1]}" | grep . | awk '{ printf "%s%.2f", (NR > 1 ? " " : ""), $1 }'; }
# The median of the rounds' ratios.
ratio() { tr ' ' '\n' <<< "${RATIOS[$1]}" | grep . | sort -g | awk '{ r[NR] = $1 } END { print (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2 }'; }
floor "filter: --audit CPU time / without" "$(ratio filt_audit)" "<=" 1.10
floor "filter: --audit --audit-records CPU time / without" "$(ratio filt_rec)" "<=" 1.10
floor "transform: --audit CPU time / without" "$(ratio tran_audit)" "<=" 1.10
floor "transform: --audit --audit-records CPU time / without" "$(ratio tran_rec)" "<=" 1.10
echo "  -     rounds' ratios: filter records $(ratio_list filt_rec); transform records $(ratio_list tran_rec)"
awk -v a="$(cpu filt_rec)" -v b="$(cpu filt)" -v c="$(cpu tran_rec)" -v d="$(cpu tran)" -v n="$records" 'BEGIN {
    printf "  -     per-record audit lines add %.0f ns (filter) and %.0f ns (transform) of CPU time per record\n", (a - b) / n * 1e9, (c - d) / n * 1e9 }'
if [[ -n "$duckdb_bin" ]]; then
    median_of() { tr ' ' '\n' <<< "$1" | grep . | sort -g | awk '{ r[NR] = $1 } END { print (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2 }'; }
    for wl in w1 w2 w3 w4; do
        floor "${wl^^}: DuckDB CPU time / xpr CPU time" "$(median_of "${DUCK_CPU[$wl]}")" ">=" 1.5
        floor "${wl^^}: DuckDB wall time / xpr wall time" "$(median_of "${DUCK_WALL[$wl]}")" ">=" 1
    done
fi
for name in xpr_j1 xpr_j2; do
    if [[ "${RSS[$name]}" -ge 0 ]]; then
        floor "$name peak RSS (MB)" "$(awk -v m="${RSS[$name]}" 'BEGIN { print m / 1024 }')" "<=" 64
    else
        echo "  -     $name peak RSS: not measured (no GNU time)"
    fi
done
exit $status
