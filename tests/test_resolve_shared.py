"""An element's primitives are made once per distinct values it reads of its item and shared by the items
reading the same (layout/resolve.py): what every shipped game's printables resolve to is what each resolves
to alone."""

import pytest

from conftest import REPO
from pnp.check import validate
from pnp.layout.resolve import Resolver
from pnp.project import find
from pnp.report import Report

GAMES = find(REPO).games()


@pytest.mark.parametrize("game", GAMES)
def test_shared_primitives_are_each_items_own(game):
    project = find(REPO)
    report = Report(project.root)
    _, studio = validate(project, game, report)
    assert studio is not None and not report.errors
    layouts = studio.layouts
    compared = 0
    for p in studio.printables():
        if p.item is None or p.extra:
            continue
        prims = studio.resolve(p)
        alone = Resolver(layouts.get(p.layout), layouts, layouts.context).resolve(p.item)  # a new one shares nothing
        assert prims == alone, p.label
        compared += 1
    assert compared
