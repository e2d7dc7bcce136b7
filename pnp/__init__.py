"""pnp: turn a game's YAML card databases into validated, print-ready PDFs."""

__version__ = "0.1.0"
# the /Creator every PDF pnp writes starts with: how pnp tells its own PDF from a user's (project.refuse_unmarked_pdf)
PDF_CREATOR = "pnp"
