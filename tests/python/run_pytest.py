# SPDX-License-Identifier: MIT
"""Runs one pytest file of the Python package's tests for ctest.

Exit status 77 (ctest SKIPPED) with the reason on stdout when pytest, numpy
or the installed dresample package is missing from this interpreter, or when
every test of the file was skipped (e.g. torch or jax not installed);
otherwise pytest's own status.  Usage: run_pytest.py TEST_FILE [pytest args].
"""
import sys

SKIP = 77


def main(argv):
    try:
        import pytest
    except ImportError:
        print("SKIPPED: pytest is not installed for %s" % sys.executable)
        return SKIP
    try:
        import numpy  # noqa: F401
        import dresample  # noqa: F401
    except ImportError as e:
        print("SKIPPED: %s (install the package: %s -m pip install . from the repository root)"
              % (e, sys.executable))
        return SKIP

    class Outcomes:
        def __init__(self):
            self.ran = 0
            self.skipped = []

        def pytest_collectreport(self, report):
            if report.skipped:
                self.skipped.append(str(report.longrepr[-1]) if isinstance(
                    report.longrepr, tuple) else str(report.longrepr))

        def pytest_runtest_logreport(self, report):
            if report.when == "call" or (report.when == "setup" and not report.passed):
                if report.skipped:
                    self.skipped.append(str(report.longrepr[-1]) if isinstance(
                        report.longrepr, tuple) else str(report.longrepr))
                else:
                    self.ran += 1

    o = Outcomes()
    rc = pytest.main(["-q", "-rs", "-p", "no:cacheprovider"] + argv, plugins=[o])
    if rc in (0, 5) and o.ran == 0:
        reasons = sorted(set(o.skipped)) or ["no tests collected"]
        print("SKIPPED: " + "; ".join(reasons))
        return SKIP
    return int(rc)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
