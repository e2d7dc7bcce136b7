"""Component kinds: one module per kind, each a Kind subclass saying what it prints, how it is checked and
how it is drawn. Adding a kind means adding a module here with one Kind subclass; it registers itself."""

import importlib
import pkgutil

from .base import Kind, Printable


def _all_subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _all_subclasses(sub)


def _discover():
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")
    kinds = [cls() for cls in _all_subclasses(Kind) if cls.name]
    return {k.name: k for k in sorted(kinds, key=lambda k: (k.order, k.name))}


KINDS = _discover()  # `kind:` name -> the kind, in print order


def component_keys():
    """What the model accepts per kind: kind name -> its component keys (beyond the common ones)."""
    return {name: kind.component_keys for name, kind in KINDS.items()}


def layout_options():
    """Every layout-file key some kind reads: name -> Param."""
    options = {}
    for kind in KINDS.values():
        options.update(kind.layout_options)
    return options


__all__ = ["KINDS", "Kind", "Printable", "component_keys", "layout_options"]
