"""`python -m pnp ...` runs the same command line as the installed `pnp` script (useful without installing). In a
folder someone sent, use the `pnp` script or `python -P -m pnp`: a pnp.py or pnp/ there is imported instead of
this module, which can guard nothing then (README)."""

import os
import sys

# `python -m` puts the current folder first on the import path, so a received game folder holding a pikepdf.py
# (or yaml.py...) ran it at the first import of that library. pnp is imported already, its libraries are found
# where they are installed: the current folder is taken off, as the installed script never has it.
try:
    _here = os.getcwd()
except OSError:  # (run in a folder deleted since: a traceback here; the command then says it as the script does)
    _here = ""
if sys.path and sys.path[0] in ("", _here):
    del sys.path[0]

from .cli import main  # noqa: E402 - after the import path is made safe

if __name__ == "__main__":
    main()
