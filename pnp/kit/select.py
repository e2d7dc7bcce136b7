"""Proofing a part of a game: `pnp build GAME --only EXPR --component ID --sample N --seed S` picks items
through one mechanism (the same selection a reprint of changed cards uses, see changes.write_selection)
and prints them into <game>-selection-<key>-<paper>.pdf with a manifest of what was picked, beside the full
kit and never over it; <key> names the selection, so that two proofs of different selections never replace each
other's files."""

import dataclasses
import hashlib
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import UsageError, cannot_write
from ..project import output_lock, refuse_unmarked_pdf
from ..report import Report, named
from .inputs import manifest_name, refuse_foreign_record, sha256
from .manifest import record_bytes, seal, seal_coming

if TYPE_CHECKING:
    from ..model.components import Component
    from ..model.game import Game
    from ..model.load import Record
    from ..printables import Studio
    from ..project import Project
    from ..units import PrintOptions


@dataclass(frozen=True)
class Selection:
    only: str | None = None  # an expression over the item, as layouts see it (`card`, `item`)
    components: tuple[str, ...] = ()  # component ids; none: every component
    sample: int | None = None  # this many items, picked at random among the rest
    seed: int = 0

    def __post_init__(self) -> None:
        # one selection however it is typed, so one name (key): --component deck --component board and board then
        # deck (or deck twice) printed the same bytes under three names, and so did a --seed with no --sample,
        # which picks nothing; each such proof stayed beside the kit until it was built again
        object.__setattr__(self, "components", tuple(sorted(set(self.components))))
        if self.sample is None:
            object.__setattr__(self, "seed", 0)

    def __bool__(self) -> bool:
        return self.only is not None or bool(self.components) or self.sample is not None  # --only "" too

    def record(self) -> dict[str, Any]:
        return {"only": self.only, "components": list(self.components), "sample": self.sample, "seed": self.seed}

    def key(self) -> str:
        """Eight hex digits naming this selection in its files: the same selection writes the same names again,
        another one its own (an --only EXPR can hold any text, so the names carry its digest, not the text)."""
        what = json.dumps(self.record(), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(what.encode("utf-8", "surrogateescape")).hexdigest()[:8]  # (a byte not UTF-8 typed)


def picked(studio: "Studio", selection: Selection) -> dict[str, list[str]]:
    """{component id: item keys} that the selection keeps, in print order. The expression is asked of every
    item within one game's template budget, as a build's templates are: each evaluation had its own 2 s, and
    one taking 1.9 s ran for minutes over a game's items."""
    from ..template import budget

    game = studio.game
    _check_components(game, selection.components)
    keys: dict[str, list[str]] = {}
    problems: list[str] = []
    asked = 0
    with budget():
        for component in game.components:
            if not selection.components or component.id in selection.components:
                kept, n = _kept(studio, component, selection.only, problems)
                asked += n
                if kept:
                    keys[component.id] = kept
    if problems and len(problems) == asked:  # an expression no item could answer is a mistake
        raise UsageError(f"--only {selection.only!r}: {problems[0]}")
    if selection.sample is not None:
        keys = _sampled(keys, selection.sample, selection.seed)
    return keys


def _check_components(game: "Game", ids: tuple[str, ...]) -> None:
    unknown = [c for c in ids if game.component(c) is None]
    if unknown:
        known = ", ".join(c.id for c in game.components)
        # (quoted: an empty one was said "--component : ...", a value nowhere)
        raise UsageError(f"--component {named(unknown[0])}: {game.id} has no such component; its components: {known}")


def _sampled(keys: dict[str, list[str]], n: int, seed: int) -> dict[str, list[str]]:
    """n of the items, the same n for the same seed."""
    pairs = [(cid, key) for cid, items in keys.items() for key in items]
    chosen = set(random.Random(seed).sample(pairs, min(n, len(pairs))))
    kept = {cid: [k for k in items if (cid, k) in chosen] for cid, items in keys.items()}
    return {cid: items for cid, items in kept.items() if items}


def _kept(studio: "Studio", component: "Component", only: str | None, problems: list[str]) -> tuple[list[str], int]:
    """(the component's item keys that `only` accepts, how many items were asked). A component without
    items (a board, a rulebook) is kept whole when there is no expression, left out when there is one."""
    from ..products.base import distinct  # ReportLab comes with it: `pnp build` of an up-to-date kit needs none
    from .faces import item_key

    if not component.items:
        return ([] if only else [item_key(None, 0)]), 0
    kept: list[str] = []
    items = distinct(component.items)
    for index, (item, _) in enumerate(items):
        if only is None or _accepts(studio, only, item, problems):
            kept.append(item_key(item, index))
    return kept, len(items)


def _accepts(studio: "Studio", expression: str, item: "Record", problems: list[str]) -> bool:
    """Whether the expression is true of the item; an item it cannot be asked of (a goal tile has no era)
    is not selected, and why is kept in `problems`. An expression that ran out of time (its own or the
    game's) is refused whole: it was taken for one the item could not answer, and the items after it (the
    same expression, found too slow, is not run again) were left out of a proof that said ok."""
    from ..template import ExprError, evaluate, out_of_time  # a build that selects nothing never loads Jinja

    try:
        return bool(evaluate(expression, studio.context(item=item, card=item)))
    except ExprError as e:
        if out_of_time(expression):
            raise UsageError(f"--only {expression!r}: {e.message}") from None
        problems.append(e.message)
        return False


def write_selected(studio: "Studio", selection: Selection, folder: str | Path) -> tuple[Path, int, int]:
    """Print the selection into `folder`; returns (pdf path, pages, number of items)."""
    from .changes import write_selection

    keys = picked(studio, selection)
    if not keys:
        raise UsageError(f"{studio.game.id}: the selection keeps nothing to print")
    from ..printables import marked_key
    from .faces import item_key

    if any(marked_key(p) in studio.marks and item_key(p.item, p.index) in keys.get(c.id, ())
           for c in studio.game.components for p in studio.of(c)):
        studio.options = dataclasses.replace(studio.options, draft=True)  # it holds a card drawn marked
    options = studio.options
    folder = Path(folder)
    pdf = selection_pdf(folder, studio.game.id, selection, options)
    with output_lock(folder):  # the PDF and its manifest from one selection, never two mixed
        refuse_unmarked_pdf(pdf, "the proof", studio.project.rel)  # (a file of the user's at its name)
        written = folder / manifest_name(options, f"selection-{selection.key()}")
        refuse_foreign_record(written, studio.game.id, "the proof", studio.project.rel)  # (and at its manifest's)

        def record(made: Path, pages: int) -> bytes:  # (of the PDF as written, put in place with it)
            data = record_bytes({"game": studio.game.id, **options.record(), "selection": selection.record(),
                                 "file": pdf.name, "sha256": sha256(made, follow=False), "bytes": made.stat().st_size,
                                 "pages": pages, "items": keys})
            seal_coming(written, data)  # (before it is put in place: see seal_coming)
            return data

        pages = write_selection(studio, {cid: set(items) for cid, items in keys.items()}, pdf, "selection",
                                record=(written, record))
        seal(written)  # (only a proof this user's pnp made is removed by the next kit: render._stale_proofs)
    return pdf, pages, sum(len(v) for v in keys.values())


def selection_pdf(folder: Path, game_id: str, selection: Selection, options: "PrintOptions") -> Path:
    """The PDF a proof of `selection` is written to in `folder`."""
    return folder / f"{game_id}-selection-{selection.key()}-{options.paper}{options.variant}.pdf"


def proof(project: "Project", game_id: str, options: "PrintOptions", selection: Selection, folder: Path,
          report: Report) -> tuple[Path, int, int] | None:
    """A proof of the part of one game that `selection` picks, written into `folder` beside its kit: (pdf,
    pages, items), or None when the game cannot be proofed (the errors are in `report`). The game is checked
    as a draft, so an error in a card the selection leaves out does not block the proof of the rest; the
    proof is a draft only if it holds a card with an error (write_selected tells)."""
    from ..check import validate

    # a file of the user's at the proof's name is said before the game is drawn (and again where it is written)
    refuse_unmarked_pdf(selection_pdf(Path(folder), game_id, selection, options), "the proof", project.rel)
    before = len(report.diagnostics)
    _, studio = validate(project, game_id, report, dataclasses.replace(options, draft=True))
    whole_game = studio.mark_data_errors(report.diagnostics[before:]) if studio is not None else None
    if studio is None or (whole_game and not options.draft):
        report.consequence(f"{game_id}: not built (fix the errors above)")
        return None
    studio.options = options
    try:
        return write_selected(studio, selection, folder)
    except OSError as e:  # a folder or a read-only file in the way: said as a build's failed write is
        refused = cannot_write(project.rel(folder), e, project.rel)
        report.error(f"{game_id}: proof failed: {refused.message}", refused.mark)
        return None
