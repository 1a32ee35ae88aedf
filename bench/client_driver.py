#!/usr/bin/env python3
"""The archpool-client contender of bench/run's compile section: the same projects submitted one by one through
the Python client (clients/python, `archpool.Pool`, which starts `archpool serve --stdio`), collected with
`as_completed`, as a package that replaced its ProcessPoolExecutor would.

Usage: client_driver.py --archpool PATH --arch A --jobs N --log-dir DIR --report FILE JOBS.json, where JOBS.json
is a list of {"id", "sourceDir", "buildDir"}. Exit status: 0 when every job succeeded, 1 otherwise (the failed
jobs are named on stderr).
"""

import argparse
import json
import sys
from concurrent.futures import as_completed
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "clients" / "python"))

import archpool  # noqa: E402  (the repository's client, not an installed one)


def main() -> int:
    parser = argparse.ArgumentParser(description="Builds CMake projects through archpool's Python client.")
    parser.add_argument("--archpool", required=True)
    parser.add_argument("--arch", required=True)
    parser.add_argument("--jobs", type=int, required=True)
    parser.add_argument("--log-dir", required=True)
    parser.add_argument("--report", required=True)
    parser.add_argument("--no-cache", action="store_true", help="pass no_cache=True: measure building")
    parser.add_argument("jobs_file")
    args = parser.parse_args()
    with open(args.jobs_file) as f:
        jobs = json.load(f)
    failed = []
    options = {"no_cache": True} if args.no_cache else {}
    with archpool.Pool(jobs=args.jobs, arch=args.arch, archpool=args.archpool, quiet=True, log_dir=args.log_dir,
                       report=args.report, **options) as pool:
        futures = {pool.submit_cmake(job["sourceDir"], job["buildDir"], id=job["id"]): job["id"] for job in jobs}
        for future in as_completed(futures):
            try:
                future.result()
            except archpool.BuildError as e:
                failed.append((futures[future], str(e)))
    for job_id, why in failed:
        print(f"client_driver: {job_id} failed: {why}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
