"""The export formats: each is an ExportFormat subclass (its `--format` name, its help, the art it needs around
each face, the settings export.json records, its plan and its preflight), registered with @register in the
module that defines it. Every module of this package but the export's machinery (MACHINERY) is imported when the
formats are first asked for, so a new format is one new module; `pnp export --format` offers exactly what is
registered here. A format's module imports what drawing needs where it draws: `pnp export --help` imports the
formats to list them."""

import importlib
import pkgutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..project import open_file, opened_picture
from ..report import Mark

if TYPE_CHECKING:
    from ..printables import Studio
    from .raster import Shot


@dataclass
class Plan:
    """What one format writes for one game: images to render, files to copy or compose, and the checks."""

    shots: list = field(default_factory=list)  # raster.Shot
    copies: list = field(default_factory=list)  # (source path, target path): identical faces encoded once
    expect: dict = field(default_factory=dict)  # path -> (w, h) px each image must have
    problems: list = field(default_factory=list)  # (message, mark): nothing is exported
    skipped: list = field(default_factory=list)  # (message, mark): those faces are left out, the rest exported
    notes: list = field(default_factory=list)  # (message, mark): warnings about faces exported all the same
    finish: Callable[[Path], None] | None = None  # function(folder) run after the images exist (sheets, saved object)
    pdfs: dict = field(default_factory=dict)  # path -> pages each PDF must have
    ink: dict = field(default_factory=dict)  # path -> the most total ink (percent) any of its pixels may have
    # path -> for each of its pages, (the face it prints as messages name it, where its layout is asked for) or None
    ink_faces: dict = field(default_factory=dict)
    tasks: list = field(default_factory=list)  # picklable callables run across processes, task(folder) -> None
    # (page, pixels, bleed, dpi) of each image planned -> its path (see shoot)
    rendered: dict = field(default_factory=dict, repr=False)

    def shoot(self, shot: "Shot") -> None:
        """`shot` planned, or, where an image of the same drawing at the same pixels, bleed and dpi is planned
        already (a deck's one back on every card, 500 tokens' one back), a copy of that image's file: the same
        pixels, rendered and encoded once (a 1,000-card deck's back was rendered 1,000 times)."""
        key = (shot.page, shot.trim_px, shot.bleed_px, shot.dpi)
        first = self.rendered.get(key)
        if first is not None:
            self.copies.append((first, shot.path))
            return
        self.rendered[key] = shot.path
        self.shots.append(shot)


FORMATS: dict[str, "ExportFormat"] = {}  # --format name -> the format, in the order they registered


class ExportFormat:
    """One export format. Subclasses set the class attributes and override what differs."""

    name = ""  # `pnp export --format NAME`, and the export folder's name
    help = ""  # what it makes, a phrase for --format's help
    writes = ""  # the files it writes, for `pnp export --help`: lines, the ones after the first indented
    # the options of `pnp export` that shape what it writes, among those only some formats read (TAKEN_BY_SOME):
    # one given to a format that reads none of it is refused, not silently left unused
    takes: tuple[str, ...] = ()

    def art_bleed(self, options: dict) -> float:
        """Points of art drawn around each face for this format: the user's --bleed unless the format needs
        more (a print service's template)."""
        return options["bleed"]

    def settings(self, options: dict) -> dict:
        """What shapes this export besides the game's files, as export.json records it after the format's
        name (an export whose settings differ is made again); `options` holds the export's 'folder' too."""
        return {"dpi": None, "bleed_mm": None}

    def plan(self, faces: list, folder: Path, options: dict, studio: "Studio") -> Plan:
        """What the format writes for the game's `faces` into `folder`: images, tasks, files and their checks."""
        raise NotImplementedError

    def preflight(self, plan: Plan, folder: Path, work: Path, shown_as: Callable[[str], str],
                  on_checked: Callable[[int], None] | None = None) -> Iterator[tuple["str | Mark", str]]:
        """The written files (under `work`, named as under `folder`) measured against the plan's rules: what is
        wrong, one (file as `shown_as` names it, message) per file and rule; said at that file, as every
        refusal is (a message beginning with the path printed `error: PATH: missing`)."""
        return preflight(plan, folder, work, shown_as, on_checked)


# options of `pnp export` a format reads only when it says so (ExportFormat.takes): `--format tgc --dpi 600` made
# The Game Crafter's template size, exit 0, and the user believed they had 600 dpi
TAKEN_BY_SOME = ("dpi", "bleed", "base_url")


def register(cls: type[ExportFormat]) -> type[ExportFormat]:
    """Class decorator: make `cls` an export format under its `name` (a name registered twice is a mistake, and so
    is one with capitals: `--format` reads its value in any case, and the name is the export folder's)."""
    if not cls.name or cls.name in FORMATS or cls.name != cls.name.lower():
        raise ValueError(f"export format {cls.name!r}: no name, registered twice, or not in small letters")
    FORMATS[cls.name] = cls()
    return cls


# the modules of this package that define no format: not imported to list the formats (run imports the check and
# the drawing, faces the component kinds: `pnp export --help` took 3 s of imports more than `pnp --help`)
MACHINERY = frozenset({"drivethru", "faces", "preview", "raster", "registry", "run", "table"})


def registered() -> dict[str, ExportFormat]:
    """Every export format: each module of this package but its machinery imported first, so that each has
    registered its own."""
    for module in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if module.name not in MACHINERY:
            importlib.import_module(f"{__package__}.{module.name}")
    return FORMATS


def moved(path: str | Path, folder: Path, work: Path) -> Path:
    """A path under the final folder, as it is while being written (under the work folder)."""
    return work / Path(path).relative_to(folder)


def preflight(plan: Plan, folder: Path, work: Path, shown_as: Callable[[str], str],
              on_checked: Callable[[int], None] | None = None) -> Iterator[tuple["str | Mark", str]]:
    """Each image as the format needs it: its exact pixel size, RGB, and nothing missing; each PDF its page count
    and ink (`on_checked(1)` as each PDF's ink is read)."""

    for path, size in sorted(plan.expect.items()):
        written = moved(path, folder, work)
        shown = shown_as(path)
        if not written.is_file():
            yield shown, "missing"
            continue
        with opened_picture(written) as image:
            if image.size != tuple(size):
                yield shown, f"{image.width} x {image.height} px; the format needs {size[0]} x {size[1]} px"
            if image.mode != "RGB":
                yield shown, f"colour mode {image.mode}; the format needs RGB"
    yield from _pdf_pages(plan, folder, work, shown_as, on_checked or (lambda n: None))


def _pdf_pages(plan: Plan, folder: Path, work: Path, shown_as: Callable[[str], str],
               on_checked: Callable[[int], None]) -> Iterator[tuple["str | Mark", str]]:
    import pypdfium2 as pdfium

    for path, pages in sorted(plan.pdfs.items()):
        written = moved(path, folder, work)
        if not written.is_file():
            yield shown_as(path), "missing"
            continue
        document = pdfium.PdfDocument(open_file(written), autoclose=True)
        if len(document) != pages:
            yield shown_as(path), f"{len(document)} pages; {pages} expected"
        document.close()
    from concurrent.futures import ThreadPoolExecutor

    from .drivethru import max_ink_at

    def worst_ink(path: str) -> tuple[float, int | None]:
        worst = max_ink_at(moved(path, folder, work))
        on_checked(1)
        return worst

    checked = sorted(plan.ink.items())
    with ThreadPoolExecutor(2) as pool:  # a check that cannot read the ink from the file renders it in Ghostscript
        worst_inks = list(pool.map(lambda item: worst_ink(item[0]), checked))
    for (path, limit), (worst, page) in zip(checked, worst_inks):
        if worst > limit + 0.5:
            faces = plan.ink_faces.get(path, [])
            face = faces[page] if page is not None and page < len(faces) else None
            if face is None or page is None:
                yield shown_as(path), f"{worst:.0f}% total ink somewhere; the format allows {limit:g}%"
            else:  # said at the face's layout's line: the file and 'somewhere' named neither it nor its layout
                yield face[1], (f"{face[0]} prints {worst:.0f}% total ink on page {page + 1} of {shown_as(path)}; "
                                f"the format allows {limit:g}%: lighten its darkest colours or pictures")
