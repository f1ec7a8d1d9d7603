# SPDX-License-Identifier: GPL-2.0-or-later
"""The test runners' results, as TAP: `ok N - what` / `not ok N - what` (with
the details as `#   ` lines), then the plan `1..N` and `P passed, F failed`.

    res = Results()
    res.check(got == want, "what is checked", f"got {got}, want {want}")
    sys.exit(res.summary())
"""
import sys


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
