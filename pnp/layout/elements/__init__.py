"""Layout element types: one module per type, each a class declaring its parameters and how it resolves.
Adding an element type means adding a module here with one Element subclass; it registers itself."""

import importlib
import pkgutil

from .base import Element

for _module in pkgutil.iter_modules(__path__):  # each element module registers its class as it is imported
    importlib.import_module(f"{__name__}.{_module.name}")

ELEMENTS = dict(sorted(Element.registry.items()))  # `type:` name -> the element
