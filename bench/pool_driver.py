#!/usr/bin/env python3
"""The Python contender of bench/run's compile section: a compile pool as GT4Py builds its generated
projects, concurrent.futures.ProcessPoolExecutor with subprocess.run.

Usage: pool_driver.py --workers N JOBS.json, where JOBS.json is a list of
{"id": ..., "commands": [[argv...], ...], "log": FILE}. Each job runs its commands one after the other,
stopping at the first that fails, with stdin empty and stdout and stderr to its log. Exit status: 0 when
every job succeeded, 1 otherwise (the failed jobs are named on stderr).
"""

import argparse
import json
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor


def build(job):
    """Runs one job's commands; returns its id and the status of the last command run."""
    with open(job["log"], "wb") as log:
        for argv in job["commands"]:
            status = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT).returncode
            if status != 0:
                return job["id"], status
    return job["id"], 0


def main():
    parser = argparse.ArgumentParser(description="Runs compile jobs in a ProcessPoolExecutor.")
    parser.add_argument("--workers", type=int, required=True)
    parser.add_argument("jobs")
    args = parser.parse_args()
    with open(args.jobs) as f:
        jobs = json.load(f)
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        failed = [(job_id, status) for job_id, status in pool.map(build, jobs) if status != 0]
    for job_id, status in failed:
        print(f"pool_driver: {job_id} failed with status {status}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
