"""pnp: turn a game's YAML card databases into validated, print-ready PDFs."""

__version__ = "0.1.0"
