"""One of cli.sh's workloads (w1 to w4) in Polars, for the peers' table:
reads the NDJSON file FILE, writes NDJSON to standard output.

Usage: python xpr-bench/polars_wl.py WORKLOAD FILE   (a Python with polars)
"""

import sys

import polars as pl


def main():
    workload, path = sys.argv[1], sys.argv[2]
    rows = pl.scan_ndjson(path)
    if workload == "w1":
        query = rows.filter((pl.col("delay") > 60) & (pl.col("distance") > 1000))
    elif workload == "w2":
        query = rows.select(
            pl.concat_str([pl.col("origin"), pl.lit("-"), pl.col("destination")]).alias("route"),
            (pl.col("delay") > 60).alias("late"),
        )
    elif workload == "w3":
        query = rows.select(
            pl.concat_str(
                [pl.col("origin").str.to_lowercase(), pl.lit(" -> "), pl.col("destination").str.to_lowercase()]
            ).alias("s")
        )
    elif workload == "w4":
        query = rows.group_by("origin", maintain_order=True).agg(pl.col("distance").sum().alias("total"))
    else:
        sys.exit(f"polars_wl.py: unknown workload {workload}")
    sys.stdout.write(query.collect().write_ndjson())


if __name__ == "__main__":
    main()
