#!/usr/bin/env python3
"""Prints the README table of xpr-arrow's benchmark (ns per row, criterion
medians, ratios within one run) from criterion's output directory:

    python3 xpr-arrow/benches/table.py target/criterion
"""
import json
import os
import sys

ROWS = {"columnar": 1_000_000, "kernels": 1_000_000, "row_path": 100_000, "run_maps": 100_000}
CASES = [
    ("a", "a: four comparisons joined by `&&`"),
    ("c", "c: arithmetic"),
    ("d", "d: concatenation + `upper()`"),
]


def main(root):
    print("| case | columnar | Arrow kernels | row path | `Program::run` over maps "
          "| columnar / kernels | row path / columnar | maps / columnar |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|")
    for case, label in CASES:
        ns = {}
        for name, rows in ROWS.items():
            path = os.path.join(root, f"case_{case}", name, "new", "estimates.json")
            with open(path) as f:
                ns[name] = json.load(f)["median"]["point_estimate"] / rows
        print(f"| {label} | {ns['columnar']:.2f} | {ns['kernels']:.2f} | {ns['row_path']:.1f} "
              f"| {ns['run_maps']:.1f} | {ns['columnar'] / ns['kernels']:.2f}x "
              f"| {ns['row_path'] / ns['columnar']:.0f}x | {ns['run_maps'] / ns['columnar']:.0f}x |")


if __name__ == "__main__":
    main(sys.argv[1])
