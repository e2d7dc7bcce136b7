"""Layout element types: one module per type, each a class declaring its parameters and how it resolves.
Adding an element type means adding a module here with one Element subclass; it registers itself."""

import importlib
import pkgutil

from .base import Element


def _all_subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _all_subclasses(sub)


def _discover():
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")
    found = {}
    for cls in _all_subclasses(Element):
        if cls.type:
            found[cls.type] = cls()
    return dict(sorted(found.items()))


ELEMENTS = _discover()  # `type:` name -> the element
