"""Component kinds: one module per kind, each a Kind subclass saying what it prints, how it is checked and
how it is drawn. Adding a kind means adding a module here with one Kind subclass; it registers itself."""

import importlib
import pkgutil
from ..layout.params import Param
from ..model.schema import Field
from .base import Kind, Printable

for _module in pkgutil.iter_modules(__path__):  # each kind's module registers its class as it is imported
    importlib.import_module(f"{__name__}.{_module.name}")

KINDS = dict(sorted(Kind.registry.items(), key=lambda pair: (pair[1].order, pair[0])))  # in print order


def component_keys() -> dict[str, dict[str, Field]]:
    """What the model accepts per kind: kind name -> its component keys (beyond the common ones)."""
    return {name: kind.component_keys for name, kind in KINDS.items()}


def layout_options() -> dict[str, Param]:
    """Every layout-file key some kind reads: name -> Param."""
    options: dict[str, Param] = {}
    for kind in KINDS.values():
        options.update(kind.layout_options)
    return options


__all__ = ["KINDS", "Kind", "Printable", "component_keys", "layout_options"]
