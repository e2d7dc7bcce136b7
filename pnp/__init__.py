"""pnp: turn a game's YAML card databases into validated, print-ready PDFs."""

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
