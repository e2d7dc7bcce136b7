"""Error types: every user-facing problem is a PnpError, never a traceback."""

import click


class PnpError(click.ClickException):
    exit_code = 1


class UsageError(PnpError):
    exit_code = 2


class BuildError(PnpError):
    pass
