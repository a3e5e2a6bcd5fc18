#!/usr/bin/env python3
"""Differential check of xpr against the Python reference runtime.

A development aid, not part of CI. Every case of the corpus (``*.ndjson``
beside this script, or the files named on the command line: one
``{"expression": ..., "context": {...}}`` per line, ``//`` lines are
comments) runs through ``xpr batch`` and through the Python reference
(``pip install xpr-lang``, module ``xpr``) in a separate interpreter, and
the script prints where they part:

- ``VALUE``: both succeed with different values;
- ``OK/ERR`` or ``ERR/OK``: one succeeds, the other fails;
- ``WORDS``: both fail but xpr's message does not contain the reference's
  words (the reference's message without a leading ``Type error:`` label
  and with its quoted or numeric details taken out, every remaining
  fragment found in order in xpr's message);
- ``REF-TIMEOUT`` / ``REF-CRASH``: the reference hung or died.

Usage::

    cargo build --release -p xpr-cli
    python3 conformance/refdiff/refdiff.py [--xpr target/release/xpr]
        [--ref-python PYTHON] [--quiet] [FILE.ndjson ...]

``--ref-python`` names an interpreter with ``xpr-lang`` installed (default:
this one). The closing summary counts the error cases where xpr's message
contains the reference's words; the exit status is 0 whatever differs.
"""

import argparse
import json
import os
import re
import select
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# The reference runs in a child process answering one JSON request per line,
# so a case that hangs or crashes it costs one restart, not the whole run.
WORKER = r"""
import json, math, re, sys
from xpr import Xpr, XprError

def plain(v):
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, (int, float)):
        if isinstance(v, float) and not math.isfinite(v):
            return {"$xpr": "nonfinite", "repr": repr(v)}
        return v
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, re.Pattern):
        return {"$xpr": "regex"}
    if callable(v):
        return {"$xpr": "function"}
    return {"$xpr": type(v).__name__, "repr": repr(v)}

sys.setrecursionlimit(10000)
for line in sys.stdin:
    case = json.loads(line)
    try:
        value = Xpr().evaluate(case["expression"], case.get("context") or {})
        out = {"ok": plain(value)}
    except XprError as e:
        out = {"error": str(e)}
    except Exception as e:
        out = {"crash": f"{type(e).__name__}: {e}"}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
"""


class Reference:
    """The Python reference in a child process, restarted after a hang."""

    def __init__(self, python, timeout):
        self.python = python
        self.timeout = timeout
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(
            [self.python, "-c", WORKER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def eval(self, case):
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        self.proc.stdin.write(json.dumps(case) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], self.timeout)
        line = self.proc.stdout.readline() if ready else ""
        if not line:
            self.proc.kill()
            self.proc.wait()
            self.proc = None
            return {"timeout": True} if not ready else {"crash": "reference died"}
        return json.loads(line)


def read_cases(paths):
    cases = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                text = line.strip()
                if not text or text.startswith("//"):
                    continue
                try:
                    case = json.loads(text)
                except json.JSONDecodeError as e:
                    sys.exit(f"{path}:{n}: not JSON: {e}")
                case["where"] = f"{os.path.basename(path)}:{n}"
                cases.append(case)
    return cases


def run_xpr(binary, cases):
    requests = "".join(
        json.dumps({"expression": c["expression"], "context": c.get("context") or {}}) + "\n"
        for c in cases
    )
    done = subprocess.run(
        [binary, "batch"], input=requests, capture_output=True, text=True, check=False
    )
    # Split on LF only: U+2028 and U+0085 may stand unescaped inside strings.
    answers = [json.loads(line) for line in done.stdout.split("\n") if line]
    if len(answers) != len(cases):
        sys.exit(f"xpr batch answered {len(answers)} lines for {len(cases)} cases: {done.stderr}")
    return answers


def same_value(a, b):
    """Equal as XPR values: one number type, booleans apart from numbers."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        if "$xpr" in a or "$xpr" in b:
            return a.get("$xpr") == b.get("$xpr")
        return list(a) == list(b) and all(same_value(a[k], b[k]) for k in a)
    return a == b


# Quoted text, numbers and positions are details, not words.
DETAIL = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'[^']*'|\b\d+(?:\.\d+)?\b| at position \d+$")


def words_of(message):
    # The category label is compared apart from the words: a domain error
    # (`sqrt(-1)`) is an arithmetic error here and a "Type error" there.
    message = message.removeprefix("Type error: ")
    fragments = (w.strip().rstrip(":,").strip() for w in DETAIL.split(message))
    return [w for w in fragments if len(w) >= 3]


def has_words(ours, theirs):
    """True when every fragment of the reference's message is in ours, in order."""
    at = 0
    for fragment in words_of(theirs):
        found = ours.find(fragment, at)
        if found < 0:
            return False
        at = found + len(fragment)
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*")
    parser.add_argument("--xpr", default=None, help="the xpr binary (default: target/release/xpr)")
    parser.add_argument("--ref-python", default=sys.executable)
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds per reference case")
    parser.add_argument("--quiet", action="store_true", help="print the summary only")
    args = parser.parse_args()

    files = args.files or sorted(
        os.path.join(HERE, f) for f in os.listdir(HERE) if f.endswith(".ndjson")
    )
    binary = args.xpr or next(
        (p for p in (os.path.join(ROOT, "target", d, "xpr") for d in ("release", "debug"))
         if os.path.exists(p)),
        None,
    )
    if binary is None:
        sys.exit("no xpr binary: run `cargo build --release -p xpr-cli` or pass --xpr")
    check = subprocess.run([args.ref_python, "-c", "import xpr; xpr.Xpr"], capture_output=True)
    if check.returncode != 0:
        sys.exit(f"{args.ref_python} cannot import the reference: pip install xpr-lang")

    cases = read_cases(files)
    ours = run_xpr(binary, cases)
    reference = Reference(args.ref_python, args.timeout)
    counts = {}
    errors_both = errors_same = 0
    for case, mine in zip(cases, ours):
        ref = reference.eval({k: case[k] for k in ("expression", "context") if k in case})
        if "timeout" in ref:
            verdict, detail = "REF-TIMEOUT", ""
        elif "crash" in ref:
            verdict, detail = "REF-CRASH", ref["crash"]
        elif "ok" in mine and "ok" in ref:
            verdict = "same" if same_value(mine["ok"], ref["ok"]) else "VALUE"
            detail = f"xpr {json.dumps(mine['ok'])} | ref {json.dumps(ref['ok'])}"
        elif "ok" in mine:
            verdict, detail = "OK/ERR", f"xpr {json.dumps(mine['ok'])} | ref {ref['error']}"
        elif "ok" in ref:
            verdict, detail = "ERR/OK", f"xpr {mine['error']} | ref {json.dumps(ref['ok'])}"
        else:
            errors_both += 1
            if has_words(mine["error"], ref["error"]):
                errors_same += 1
                verdict = "same"
            else:
                verdict = "WORDS"
            detail = f"xpr {mine['error']} | ref {ref['error']}"
        counts[verdict] = counts.get(verdict, 0) + 1
        if verdict != "same" and not args.quiet:
            print(f"{verdict:<11} {case['where']}: {case['expression']}")
            if detail:
                print(f"            {detail}")
    summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    print(f"\n{len(cases)} cases: {summary}")
    print(f"errors on both sides: {errors_both}; xpr's message has the reference's words in {errors_same}")


if __name__ == "__main__":
    main()
