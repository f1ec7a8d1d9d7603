# SPDX-License-Identifier: GPL-2.0-or-later
"""The test runners' results, as TAP: `ok N - what` / `not ok N - what` (with
the details as `#   ` lines), then the plan `1..N` and `P passed, F failed`.

    res = Results()
    res.check(got == want, "what is checked", f"got {got}, want {want}")
    sys.exit(res.summary())

Most of a runner's time is tshark starting (about half a second each), one
capture after another: res.each(items, fn) runs fn(item, batch) for several
items at once, on threads, and prints each item's checks (batch.check, same
arguments) in the order of items, numbered as one after another would be.
"""
import collections
import concurrent.futures
import os
import sys


def default_jobs():
    """Items worked on at once: $TLSNEG_TEST_JOBS, else the number of CPUs."""
    try:
        return max(1, int(os.environ.get("TLSNEG_TEST_JOBS", "")))
    except ValueError:
        return os.cpu_count() or 1


def ordered_map(fn, items, jobs=None):
    """fn(item) for every item, `jobs` at a time on threads; the results in
    the order of items, never more than 2 * jobs of them ahead of the reader.
    An exception of fn is raised when its item's turn comes."""
    jobs = jobs or default_jobs()
    items = iter(items)
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        ahead = collections.deque(pool.submit(fn, x) for _, x in zip(range(2 * jobs), items))
        try:
            while ahead:
                done = ahead.popleft()
                for x in items:
                    ahead.append(pool.submit(fn, x))
                    break
                yield done.result()
        finally:
            for f in ahead:
                f.cancel()


class Batch:
    """The checks made for one item on a worker thread (Results.each)."""

    def __init__(self):
        self.checks = []

    def check(self, ok, what, detail=""):
        ok = bool(ok)
        self.checks.append((ok, what, detail))
        return ok


class Results:
    def __init__(self, max_detail=40):
        self.passed = self.failed = 0
        self.max_detail = max_detail

    @property
    def count(self):
        return self.passed + self.failed

    def check(self, ok, what, detail=""):
        """One numbered TAP line; detail (a string or a list of lines) is
        printed under a failure. Returns ok."""
        ok = bool(ok)
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        print(f"{'ok' if ok else 'not ok'} {self.count} - {what}", flush=True)
        if not ok and detail:
            lines = detail if isinstance(detail, (list, tuple)) else str(detail).splitlines()
            for line in lines[:self.max_detail]:
                print(f"#   {line}")
            if len(lines) > self.max_detail:
                print(f"#   ... {len(lines) - self.max_detail} more")
        return ok

    def each(self, items, fn, jobs=None):
        """fn(item, batch) for every item, several at once (ordered_map); the
        checks of each batch printed in the order of items."""
        def one(item):
            batch = Batch()
            try:
                fn(item, batch)
            except Exception as e:  # raised below, after the checks made before it
                return batch, e
            return batch, None

        for batch, error in ordered_map(one, items, jobs):
            for ok, what, detail in batch.checks:
                self.check(ok, what, detail)
            if error is not None:
                raise error

    def add(self, passed, failed):
        """Count results reported elsewhere (another process's TAP)."""
        self.passed += passed
        self.failed += failed

    def summary(self):
        """Print the plan and the counts; the exit status: 1 if anything
        failed or nothing was checked, else 0."""
        print(f"1..{self.count}")
        print(f"{self.passed} passed, {self.failed} failed")
        sys.stdout.flush()
        return 1 if self.failed or not self.count else 0
