"""pnp: turn a game's YAML card databases into validated, print-ready PDFs."""

import os
import signal
import sys
import types

__version__ = "0.1.0"
# the /Creator every PDF pnp writes starts with: how pnp tells its own PDF from a user's (project.refuse_unmarked_pdf)
PDF_CREATOR = "pnp"

# ReportLab, when first imported, runs ~/.reportlab_mods and ~/.reportlab_settings (or modules of those names on the
# import path) as Python: code outside the project, which could also change the bytes of every PDF, and with HOME
# a file (HOME=/dev/null in a service) its import ended in pnp's internal error (NotADirectoryError). Empty modules
# of those names, in place before ReportLab's first import, are what it finds instead: it reads neither file.
for _name in ("reportlab_mods", "reportlab_settings"):
    sys.modules.setdefault(_name, types.ModuleType(_name))


def _interrupted_while_starting(signum: int, frame: object) -> None:
    """Ctrl-C before pnp's command line runs: nothing is written yet, so pnp ends at once, as click says an
    interrupted command ended (a KeyboardInterrupt raised in the import of pnp's modules, a second or so, printed
    Python's traceback)."""
    os.write(2, b"\nAborted!\n")
    os._exit(1)


def ready_for_interrupts() -> None:
    """Ctrl-C raises KeyboardInterrupt again, as the commands expect (their clean-up runs, click says Aborted!)."""
    if signal.getsignal(signal.SIGINT) is _interrupted_while_starting:
        signal.signal(signal.SIGINT, signal.default_int_handler)


# only when pnp itself is the program (its script, or python -m pnp, whose argv[0] is -m while it is found):
# a program importing pnp keeps its own Ctrl-C
if os.path.basename(sys.argv[0] if sys.argv else "") in ("pnp", "pnp.exe", "-m") and \
        signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    signal.signal(signal.SIGINT, _interrupted_while_starting)
