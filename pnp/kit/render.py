"""Draw one game's kit into its output folder: each component drawn once, into its kind's PDF; the all-in-one
PDF is those PDFs' pages copied in print order (qpdf, through pikepdf), never drawn again. Files go to
temporary names beside the old ones and replace them only when every one is written."""

import contextlib
import errno
import io
import os
import re
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, cast

from .. import PDF_CREATOR, __version__
from ..draw.canvas import Canvas, new_canvas as deterministic_canvas
from ..draw.pictures import forget_kept, share_kit_pictures
from ..errors import UsageError, blame, in_the_way
from ..report import Mark
from ..products import KINDS
from ..project import ErrorHoldingFile, commit_files, finishing, open_to_write, opened_pdf, temporary_beside
from ..template import budget
from .faces import FACE_FIELDS, manifest_faces
from .inputs import manifest_name, read_manifest, sha256
from .manifest import Manifest, of_size, recorded_size, seal, sealed

if TYPE_CHECKING:
    from ..units import PrintOptions
    from ..model.components import Component
    from ..model.game import Game
    from ..products.base import Kind
    from ..printables import Studio


@dataclass
class GameBuild:
    game: "Game"
    studio: "Studio"
    folder: Path
    files: dict[str, Path] = field(default_factory=dict)  # final name -> temporary path holding its bytes
    pages: dict[str, int] = field(default_factory=dict)  # name -> page count
    placements: dict[str, dict[str, Any]] = field(default_factory=dict)  # component id -> {file, pages, all_pages}
    all_name: str = ""
    inputs: dict[str, Any] = field(default_factory=dict)  # what the manifest records as the build's inputs
    warnings: list[dict[str, Any]] = field(default_factory=list)  # validation's warnings, replayed when up to date

    def discard(self) -> None:
        """Remove the temporary files: the previous output stays as it was."""
        for tmp in self.files.values():
            tmp.unlink(missing_ok=True)


def new_canvas(target: Path, studio: "Studio", what: str, on_page: Callable[[], None] | None = None) -> Canvas:
    """A kit PDF's canvas (deterministic, compressed) titled with the game and `what` it holds; `on_page`
    before each page is finished."""
    c = deterministic_canvas(str(target), studio.fonts.name("Body"), studio.paper, compression=1, on_page=on_page)
    c.setTitle(f"{studio.game.title} — {what}")
    c.setAuthor(_author(studio))
    c.setCreator(f"{PDF_CREATOR} {__version__}")
    c.setSubject("Print-and-play kit")
    return c


def _author(studio: "Studio") -> str:
    credits = studio.game.meta.get("credits") or {}
    return str(credits.get("design", "")) or "pnp"


def by_kind(game: "Game") -> list[tuple["Kind", list["Component"]]]:
    """Components grouped by kind, kinds in print order."""
    groups: dict[str, list[Component]] = {}
    for component in game.components:
        groups.setdefault(component.kind, []).append(component)
    return [(KINDS[name], groups[name]) for name in KINDS if name in groups]


def steps(game: "Game") -> int:
    """How many steps render_game reports: each component, each extra file, and the all-in-one PDF."""
    extra = sum(len(kind.extra_files()) for kind, _ in by_kind(game))
    return len(game.components) + extra + 1


def all_in_one_name(game_id: str, options: "PrintOptions") -> str:
    return f"{game_id}-{options.paper}{options.variant}.pdf"


def kind_file_name(game_id: str, kind: "Kind", options: "PrintOptions") -> str:
    return f"{game_id}-{kind.file_part}-{options.paper}{options.variant}.pdf"


def extra_file_name(game_id: str, part: str, options: "PrintOptions") -> str:
    return f"{game_id}-{part}{options.suffix}.pdf"  # no paper in the name: the suffix says it


def kit_names(game_id: str, options: "PrintOptions") -> set[str]:
    """Every name a kit of `game_id` built with `options` can write, whatever components the game has: names
    no build with other options (nor a proof, a reprint or a report) ever writes (see PrintOptions.named_parts)."""
    names = {all_in_one_name(game_id, options), manifest_name(options)}
    for kind in KINDS.values():
        names.add(kind_file_name(game_id, kind, options))
        names.update(extra_file_name(game_id, part, options) for part, _, _ in kind.extra_files())
    return names


def _temporary(folder: Path, name: str) -> Path:
    return temporary_beside(folder / name)  # never another build's: two at once each write their own


def render_game(game: "Game", studio: "Studio", folder: str | Path,
                on_step: Callable[[str], None] | None = None) -> GameBuild:
    """Draw every PDF of one game into temporary files in `folder`; `on_step(label)` after each step.
    Nothing replaces the previous output here: `commit` does, `GameBuild.discard` abandons."""
    on_step = on_step or (lambda label: None)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    result = GameBuild(game, studio, folder)
    slug = game.id
    in_order = []  # the per-kind PDFs, in the all-in-one PDF's order
    drawing: list[Component] = []  # the component whose pages are being drawn: each page is counted against it
    kit_pictures = [0]  # bytes of pictures in the PDFs the all-in-one PDF copies (pictures.share_kit_pictures)

    def page_drawn() -> None:
        studio.budget.spend_page(drawing[-1].spec.mark_of("copies") if drawing else None)

    try:
        with budget():
            for kind, components in by_kind(game):
                name = kind_file_name(slug, kind, studio.options)
                result.files[name] = tmp = _temporary(folder, name)
                canvas = new_canvas(tmp, studio, kind.file_part, page_drawn)
                share_kit_pictures(canvas, kit_pictures)
                page = 1
                for component in components:
                    drawing.append(component)
                    n = kind.draw(canvas, component, studio)
                    result.placements[component.id] = {"file": name, "pages": [page, page + n - 1]}
                    page += n
                    on_step(component.name)
                canvas.save()
                canvas = None  # its pages, held until saved, can go before the next PDF is drawn
                result.pages[name] = page - 1
                in_order.append(name)
                for part, title, draw in kind.extra_files():
                    extra = extra_file_name(slug, part, studio.options)
                    result.files[extra] = tmp = _temporary(folder, extra)
                    canvas = new_canvas(tmp, studio, title, page_drawn)
                    result.pages[extra] = 0
                    for component in components:
                        drawing.append(component)
                        result.pages[extra] += draw(canvas, component, studio)
                    canvas.save()
                    on_step(title)
        drawing.clear()  # (no component is at fault when joining the files fails)
        # nothing is drawn any more: what the drawing kept or freed is given back before qpdf's own memory comes
        # on top of it (a game of large pictures: 1.28 GB, 0.77 GB of it held from drawing)
        forget_kept()
        result.all_name = all_in_one_name(slug, studio.options)
        result.files[result.all_name] = tmp = _temporary(folder, result.all_name)
        _assemble(tmp, [result.files[name] for name in in_order], studio)
    except BaseException as e:
        if drawing:  # a bug met while drawing a component's pages: said at it when nothing inside said where
            blame(e, drawing[-1].spec.mark)
        result.discard()
        raise
    offsets, first = {}, 1
    for name in in_order:
        offsets[name], first = first - 1, first + result.pages[name]
    result.pages[result.all_name] = first - 1
    for place in result.placements.values():
        place["all_pages"] = [p + offsets[place["file"]] for p in place["pages"]]
    on_step("all-in-one PDF")
    return result


def _assemble(target: Path, parts: list[Path], studio: "Studio") -> None:
    """The all-in-one PDF: the per-kind PDFs' pages copied in order. qpdf writes the same bytes for the same
    pages (its document id is a digest of the content), so rebuilds stay byte-identical."""
    import pikepdf

    with pikepdf.new() as whole, contextlib.ExitStack() as opened:
        sources = [opened.enter_context(opened_pdf(part)) for part in parts]
        for source in sources:
            whole.pages.extend(source.pages)
        info = whole.docinfo
        info["/Title"] = f"{studio.game.title} — everything"
        info["/Author"] = _author(studio)
        info["/Creator"] = f"{PDF_CREATOR} {__version__}"
        info["/Producer"] = f"pnp {__version__} (ReportLab, qpdf)"
        info["/Subject"] = "Print-and-play kit"
        with open_to_write(target) as file:
            out = ErrorHoldingFile(file)
            whole.save(cast(BinaryIO, out), deterministic_id=True, compress_streams=True,
                       object_stream_mode=pikepdf.ObjectStreamMode.generate)
            out.raise_held()


def manifest(result: GameBuild) -> Manifest:
    """What the kit holds and was built from: components, files with their sha256 and pages, and inputs."""
    game, studio = result.game, result.studio
    components = []
    for c in game.components:
        entry = {"id": c.id, "name": c.name, "kind": c.kind, "count": c.count,
                 "size_mm": KINDS[c.kind].size_mm(c, studio)}
        place = result.placements.get(c.id, {})
        entry.update(file=place.get("file"), pages=place.get("pages"),
                     all_in_one={"file": result.all_name, "pages": place.get("all_pages")},
                     faces=manifest_faces(studio, c))
        components.append(entry)
    files = [{"path": name, "sha256": sha256(path), "bytes": path.stat().st_size, "pages": result.pages[name]}
             for name, path in sorted(result.files.items())]
    return Manifest({"game": game.id, "title": game.title, **studio.options.record(), "pnp": __version__},
                    files, result.warnings, result.inputs, components, FACE_FIELDS)


def commit(result: GameBuild) -> list[Path]:
    """Write the manifest, make every file durable, then rename them all into place: a build that fails
    before this point leaves the old files as they were. Returns the final paths."""
    folder = result.folder
    name = manifest_name(result.studio.options)
    before, listed = _kit_record(folder / name, result.game.id)
    try:
        _refuse_foreign(folder, name, listed, result.files, result.game.id, result.studio.project.rel)
    except (UsageError, OSError):
        result.discard()
        raise
    tmp = _temporary(folder, name)
    try:
        with io.TextIOWrapper(open_to_write(tmp), encoding="utf-8") as f:
            manifest(result).write(f)
    except BaseException:  # a full disk: the kit's temporaries and the half manifest were left, hidden, for good
        tmp.unlink(missing_ok=True)
        result.discard()
        raise
    # the manifest first: a build killed between two renames leaves a manifest listing every name of the new
    # kit, so that the next build knows each file under them as pnp's (_refuse_foreign), old or new; the
    # files it lists that are still old are not as it records them, so the kit is not up to date
    renames = {tmp: folder / name} | {path: folder / final for final, path in result.files.items()}
    result.files[name] = tmp
    # the proofs beside the old kit go in the step that puts the new one in place: removed after the manifest was
    # sealed, a pnp killed between the two left them for good beside a kit every later build found up to date,
    # drawn from what the game was before. The manifest is sealed only once that step is whole (not before, as
    # a proof's is: a kit killed with its old files still set aside was found up to date, then put back by the
    # clean-up, and the old kit was said up to date); killed before it is sealed, the kit is built again
    stale = _stale_proofs(folder, result.game.id, result.studio.options)
    with finishing():  # (a worker whose pnp ended ends after this, not half way: project.end_with_parent)
        try:
            commit_files(renames, _outgrown(folder / name, before or {}, set(result.files),
                                            kit_names(result.game.id, result.studio.options)) + stale)
        finally:
            result.discard()  # whatever was not renamed
        seal(folder / name)
    return [folder / final for final in result.files]


def _stale_proofs(folder: Path, game_id: str, options: "PrintOptions") -> list[Path]:
    """The proofs of selections (select.write_selected) made beside the previous kit of these options, with their
    manifests, which commit removes as it puts the new kit in place: drawn from what the game was then, they
    piled up in the folder, one per selection ever typed, and an old one passed for the game as it is; the new
    kit holds every item. Only a proof as pnp left it (its size and sha256, as its manifest records them) goes,
    with its manifest, and only one this user's pnp made (its manifest sealed): one edited since, a user's file,
    or a received folder's is kept, and never read (forged manifests beside 40 hard links to one 300 MB file
    made a build hash 12 GB, 71 s). The PDF is the one named by the manifest's key, never a name the manifest
    gives (a received one named the kit's). A sealed manifest whose PDF is gone (deleted by the user) goes
    alone: said of no file, it was left for good."""
    named = re.compile(r"manifest-selection-([0-9a-f]{8})" + re.escape(options.suffix) + r"\.json")
    found: list[str] = []
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        found = sorted(e.name for e in entries if named.fullmatch(e.name) and e.is_file(follow_symlinks=False))
    stale: list[Path] = []
    for name in found:
        key = name.split("-")[2][:8]
        pdf = folder / f"{game_id}-selection-{key}-{options.paper}{options.variant}.pdf"
        with contextlib.suppress(UsageError, OSError, KeyError):
            if not sealed(folder / name):
                continue
            record = read_manifest(folder / name, name)
            if not os.path.lexists(pdf):
                stale.append(folder / name)
            elif (pdf.stat(follow_symlinks=False).st_size == record["bytes"]
                    and sha256(pdf, follow=False) == record["sha256"]):
                stale += [pdf, folder / name]
    return stale


def _kit_record(path: Path, game_id: str) -> "tuple[dict[str, tuple[str, int]] | None, set[str] | bool | None]":
    """What the kit manifest at `path`, read once, says: {name: (sha256, bytes)} of the files it lists (None when it
    cannot be read as pnp's), and as _refuse_foreign takes it, the names it lists when it is one pnp wrote for
    `game_id` (it names the game), True when it names the game but its list is not as pnp writes it, None when
    there is none or it is not one."""
    try:
        data = read_manifest(path, path.name)
    except UsageError:  # (none, a link, not JSON)
        return None, None
    try:
        before: dict[str, tuple[str, int]] | None = {f["path"]: (f["sha256"], recorded_size(f))
                                                     for f in Manifest.of(data, path.name).files}
    except (UsageError, ValueError):
        before = None
    if data.get("game") != game_id:
        return before, None
    return before, True if before is None else set(before)


def _refuse_foreign(folder: Path, manifest: str, listed: "set[str] | bool | None", written: Iterable[str],
                    game_id: str, rel: Callable[[Path], str]) -> None:
    """UsageError at the first of the names this build writes (`written`, and its `manifest`) that holds what no
    build of `game_id` wrote, which the build would replace: a manifest that is not one pnp wrote for the game;
    a file with no such manifest beside it, or one it does not list (`listed`, as _kit_record gives it). `--out
    ~/Desktop` over the user's own ~/Desktop/<game>/manifest.json or <game>-a4.pdf replaced it, exit 0. A file
    the manifest lists is the kit's though changed since (replacing it is what a build is asked to do), as is
    every file beside a manifest of the game whose list is damaged; a received folder's kit is replaced too.
    What is no file there (a folder, a link, a pipe) is said when the build writes there ('cannot write'); but a
    folder in the manifest's place first (OSError): with no manifest read, the kit's first PDF was refused as 'a
    file pnp did not write (no manifest.json beside it lists it)', moved away in vain."""
    with contextlib.suppress(FileNotFoundError, NotADirectoryError):
        if stat.S_ISDIR((folder / manifest).lstat().st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(folder / manifest))
    # the manifest first: a game named before it ('g': g-a4.pdf) had its kit's first PDF refused as 'no manifest.json
    # beside it lists it', a manifest.json of another game's or damaged beside it, which was never named
    for name in [manifest, *sorted(set(written) - {manifest})]:
        path = folder / name
        try:
            if not stat.S_ISREG(path.lstat().st_mode):  # (a link or a pipe is refused by commit_files, a folder by
                continue  # the rename: 'cannot write')
        except OSError:  # none there (or said when the build writes it)
            continue
        if listed is True or name in (listed or ()) or (name == manifest and listed is not None):
            continue
        if name == manifest:
            what = f"a file pnp did not write (not a manifest of {game_id}'s kit)"
        else:
            what = "a file pnp did not write (" + (f"no {manifest} beside it" if listed is None else manifest) + \
                " lists it)"
        raise UsageError(in_the_way(what, "the kit's"), Mark(rel(path)))


def _outgrown(manifest: Path, before: dict[str, tuple[str, int]], written: set[str], own: set[str]) -> list[Path]:
    """The files the previous kit of these options made that this one did not (a kind of component the game no
    longer has: its PDF stayed beside the new kit, listed by no manifest, and was printed as part of it), which
    commit_files removes with the renames of the new kit: only names of this kit's own (`own`), and only as that
    kit left them (`before`: name -> (sha256, bytes)), so another build's files, a user's or one edited since are
    kept. Only when that kit's `manifest` is one this user's pnp wrote (sealed), and a file's size first: a
    received folder's manifest listing every kind's name of a kit, each a 2 GB sparse file, had a build hash 10 GB
    (53 s); such files are kept, never read."""
    folder, found = manifest.parent, []
    try:
        if not before or not sealed(manifest):
            return []
    except OSError:
        return []
    for name in sorted((before.keys() - written) & own):
        with contextlib.suppress(OSError):
            if (of_size(os.stat(folder / name, follow_symlinks=False).st_size, before[name][1])
                    and sha256(folder / name, follow=False) == before[name][0]):
                found.append(folder / name)
    return found
