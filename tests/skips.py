"""A pytest hook that says the skipped tests at the end of every run (tests/conftest.py takes it; a plugin of its
own so that a test can run it without importing pnp)."""


def pytest_terminal_summary(terminalreporter):
    """Say each skipped test and why at the end of every run, not only under -rs: a test that did not run (the
    browser test without chromium) must not pass for a green one."""
    skipped = terminalreporter.stats.get("skipped", [])
    if not skipped or "s" in terminalreporter.reportchars:
        return
    terminalreporter.section(f"{len(skipped)} skipped: these tests did NOT run", sep="!", yellow=True, bold=True)
    for report in skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        terminalreporter.line(f"{report.nodeid}: {reason.removeprefix('Skipped: ')}", yellow=True)
