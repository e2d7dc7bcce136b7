"""`pnp new`: a small game that validates and builds at once, every file commented, as the start of a
designer's own. The files are in pnp/scaffold/: `common/` for every game (game.yaml, a token sheet, text
styles, an icon, the rulebook) and one folder per starting point (`deck`, `board`; `tokens` is common
alone), whose tables, constraints, components and rulebook lines fill the markers of the common files."""

import contextlib
import errno
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import UsageError, why_not_written
from .options import CONTROL_CHARACTER
from .project import RESERVED_GAME_NAMES, locked_scratch, move_into_place, named_alike, new_file_beneath, output_path
from .report import Mark, shown

if TYPE_CHECKING:
    from .project import Project

SCAFFOLD = Path(__file__).resolve().parent / "scaffold"
STARTS = ("deck", "board", "tokens")
ALREADY_EXISTS = "already exists: pnp new never overwrites a game (choose another name, or delete the folder)"
GAME_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")
SURROGATE = re.compile("[\ud800-\udfff]")  # a character no UTF-8 file can hold
LINE_BREAK = re.compile(r"[\t\n\r\u2028\u2029]")  # (and those CONTROL_CHARACTER holds: \v, \f, \x1c-\x1e, \x85)
# characters of a --title, refused past it before any work: far past what a rulebook's footer holds (which validate
# says), and a title of 100,000 was written and validated at twice the time of a game's
MAX_TITLE = 200
MARKERS = {"__TABLES__": "tables.yaml", "__CONSTRAINTS__": "constraints.yaml",
           "__COMPONENTS__": "components.yaml", "__RULEBOOK__": "rulebook.md"}


def new_game(project: "Project", game_id: str, start: str = "deck", title: str | None = None) -> list[Path]:
    """Write cards/<game_id>/ and layouts/<game_id>/ into the project; returns the files written."""
    if title is not None:
        _refuse_unless_title(title)
    targets = _checked(project, game_id, start)
    given = title
    title = title if title is not None else game_id.replace("-", " ").title()
    _yaml_text(title)  # (refused here when it is no title)
    parts = {marker: _part(start, name) for marker, name in MARKERS.items()}
    try:
        written, made = _written(project, game_id, start, title, parts, targets)
    except OSError as e:  # (a project whose cards/ is a file was a traceback)
        # a move into place names the game's folder (filename2), not the staging folder it came from: two
        # `pnp new g` at once, the second was refused at '.pnp-new-x1y2/cards/g', a folder gone by then
        named = e.filename2 if isinstance(e.filename2, (str, Path)) else e.filename
        if isinstance(named, (str, Path)):
            named = _unstaged(Path(named))
        where = project.rel(named) if isinstance(named, (str, Path)) else project.rel(project.root)
        if e.errno in (errno.ENOTEMPTY, errno.EEXIST) and any(str(t) == str(named) for t in targets):
            # the game's folder made after _checked (another `pnp new` of that name finished first): said as a
            # second `pnp new` after the first says it, not as the system's 'Directory not empty'
            raise UsageError(ALREADY_EXISTS, Mark(where)) from None
        raise UsageError(f"cannot write the new game there: {why_not_written(e)}", Mark(where)) from None
    if given is not None:
        try:
            _refuse_unless_valid(project, game_id, given, targets, made)
        except (KeyboardInterrupt, SystemExit):  # Ctrl-C while the game was checked left a game it would refuse
            _take_back(project, targets, made)
            raise
    return written


def _refuse_unless_title(title: str) -> None:
    """A --title that is blank (`--title ''` quietly took the title made from the game's name) or past MAX_TITLE
    characters, refused as a usage error before any work."""
    if not title.strip():
        raise UsageError(f"--title {shown(title)}: a title cannot be blank; leave --title out to take the one "
                         "made from GAME")
    if len(title) > MAX_TITLE:
        raise UsageError(f"--title: a title of {len(title):,} characters; a title has at most {MAX_TITLE}")


def _refuse_unless_valid(project: "Project", game_id: str, title: str, targets: list[Path], made: list[Path]) -> None:
    """The new game, written with a title of the user's, checked as `pnp validate` checks it, and taken back
    (both folders removed, and the project's cards/ and layouts/ where it `made` them) with the first error when
    it does not validate: a title too long for the rulebook's footer or the card back's box, or holding
    characters the fonts lack, made a game validate refused. The title made from a game id (at most 40 ASCII
    letters) always fits, so only a given one is checked."""
    from .check import validate
    from .report import Report

    report = Report(project.root)
    validate(project, game_id, report)
    ours = [d for d in report.sorted() if d.severity == "error" and d.mark is not None
            and Path(d.mark.file).parts[:2] in (("cards", game_id), ("layouts", game_id))]
    if ours:
        _take_back(project, targets, made)
        count = f"the first of {len(ours)} errors" if len(ours) > 1 else "its error"
        raise UsageError(f"--title {shown(title)}: pnp new wrote nothing: with this title the new game would not "
                         f"validate ({count}: {ours[0]})")


def _take_back(project: "Project", targets: list[Path], made: list[Path]) -> None:
    """Remove the game's two folders just written (cards/<game>/ first) and the project folders `made` for them.
    Each folder is moved into a hidden one of the project in one rename before it is deleted: deleted where it
    was, a pnp killed midway left cards/<game>/game.yaml without its tables, a game every `pnp validate` and
    `pnp build` of the project refused until it was deleted; now a kill leaves the game whole or gone."""
    with _staging(project) as tmp:
        for number, target in enumerate(targets):
            try:
                move_into_place(target, Path(tmp) / str(number))
            except OSError:  # (cannot be moved: deleted where it is)
                shutil.rmtree(target, ignore_errors=True)
    _remove_made(made)  # (a refused title left a new project's cards/ and layouts/ behind, empty)


def _written(project: "Project", game_id: str, start: str, title: str, parts: dict[str, str | None],
             targets: list[Path]) -> tuple[list[Path], list[Path]]:
    """new_game's writing: the game staged in a hidden folder of the project, then moved into place; the files
    written, and the project's folders (cards/, layouts/) made for them. OSError."""
    project.root.mkdir(parents=True, exist_ok=True)
    with _staging(project) as staged:
        written = [project.root / rel for rel in _stage(staged, start, game_id, title, parts)]
        made: list[Path] = []  # the project's cards/ and layouts/, where this made them
        try:
            for folder in (project.cards, project.layouts):
                if not folder.is_dir():
                    folder.mkdir()  # (FileExistsError naming a file of that name)
                    made.append(folder)
            # layouts/<game>/ first, cards/<game>/ last: a game is its cards/<game>/game.yaml, so a pnp killed
            # between the two moves (no clean-up runs) leaves a layouts folder no command reads, not a game without
            # its layouts, refused by every `pnp validate` and `pnp build` of the project until it was deleted
            move_into_place(staged / "layouts" / game_id, targets[1])
            try:  # both folders appear, or neither
                move_into_place(staged / "cards" / game_id, targets[0])
            except OSError:
                shutil.rmtree(targets[1])
                raise
        except OSError:  # (layouts/ a file: the cards/ made for the game was left behind, empty)
            _remove_made(made)
            raise
    return sorted(written), made


STAGING_PREFIX = ".pnp-new-"


@contextlib.contextmanager
def _staging(project: "Project") -> Iterator[Path]:
    """A hidden folder of the project's own to stage a game in (or take one back through): see locked_scratch. A
    SIGKILL runs no clean-up: each killed `pnp new` left its .pnp-new-<random>/ in the project for good, holding a
    whole game when killed between staging it and moving it into place (or when taking one back)."""
    with locked_scratch(project.root, STAGING_PREFIX) as staged:
        yield staged


def _unstaged(path: Path) -> Path:
    """`path` with the staging folder left out of it: where it goes in the project. A project folder pnp may
    not write (read-only, a copy from a CD) was refused at '.pnp-new-x1y2', the staging folder it could not
    make, a name the user never saw; a file that could not be staged (a full disk) at
    '.pnp-new-x1y2/cards/g/game.yaml'."""
    parts = path.parts
    for index, part in enumerate(parts):
        if part.startswith(STAGING_PREFIX):
            return Path(*parts[:index], *parts[index + 1:])
    return path


def _remove_made(made: list[Path]) -> None:
    """Take back the folders made for a game that was not written, latest first, where they are still empty."""
    for folder in reversed(made):
        with contextlib.suppress(OSError):
            folder.rmdir()


def _checked(project: "Project", game_id: str, start: str) -> list[Path]:
    """The two folders the new game will be, once its name and starting point are known to be good."""
    if not GAME_ID.fullmatch(game_id or ""):
        raise UsageError(f"{shown(game_id)} cannot name a game: use lowercase letters, digits and hyphens "
                         "(at most 40), e.g. my-game")
    if game_id in RESERVED_GAME_NAMES:
        raise UsageError(f"'{game_id}' cannot name a game: pnp reserves it ({RESERVED_GAME_NAMES[game_id]}); "
                         "choose another name")
    if start not in STARTS:
        raise UsageError(f"--from is one of {', '.join(STARTS)}")
    # written like any command's output: into real folders of the project, never through a link (a project
    # someone sent may hold `cards -> ~`); its own folders are the ones pnp reads, so none is protected here
    targets = [output_path(project, None, default=folder / game_id, protected=(), out_names=None)
               for folder in (project.cards, project.layouts)]
    _refuse_unless_folders(project)
    taken = [t for t in targets if t.exists() or t.is_symlink()]
    if taken:
        raise UsageError(ALREADY_EXISTS, Mark(project.rel(taken[0])))  # (at it, as every refusal at a path)
    # a game named as one there but for case (Dino, dino) made a second game that validate and build refuse,
    # with the first, until one is renamed; on a disk that ignores case it is that game's folder, refused above.
    # So the project's own folders: cards/ made beside a Cards/ was a second folder, one with it on such a disk
    for folder in (project.cards, project.layouts):
        if (alike := named_alike(project.root, folder.name)) is not None:
            raise UsageError(f"is there, one folder with the project's {folder.name}/, where the new game goes, on a "
                             "disk that does not tell such names apart (macOS, Windows, a USB stick): rename it to "
                             f"{folder.name}/", Mark(project.rel(project.root / alike)))
    for folder, target in zip((project.cards, project.layouts), targets):
        if (alike := named_alike(folder, game_id)) is not None:
            raise UsageError(f"'{game_id}' cannot name a game: {project.rel(folder)}/{shown(alike)} is named alike "
                             "but for case or how its accents are stored, one folder with "
                             f"{project.rel(target)} on a disk that does not tell such names apart (macOS, Windows, "
                             "a USB stick): choose another name")
    return targets


def _refuse_unless_folders(project: "Project") -> None:
    """A file where the project's cards/ or layouts/ is (made by mistake, a folder sent as one file) refused at
    it: it was said as 'something that is no file is in its place', once the game had been staged."""
    for folder in (project.cards, project.layouts):
        if folder.exists() and not folder.is_dir():
            raise UsageError(f"{'a file' if folder.is_file() else 'something that is no folder'} is in the place of "
                             f"the project's folder {folder.name}/, where the new game's folder goes: move it away",
                             Mark(project.rel(folder)))


def _stage(staged: Path, start: str, game_id: str, title: str, parts: dict[str, str | None]) -> Iterator[Path]:
    """Write the scaffold's files, filled in, under `staged`; yields their paths relative to it."""
    for base in (SCAFFOLD / "common", SCAFFOLD / start):
        for src in sorted(base.rglob("*")):
            rel = src.relative_to(base)
            if src.is_dir() or rel.parts[0] not in ("cards", "layouts"):
                continue
            rel = Path(*(game_id if p == "__GAME__" else p for p in rel.parts))
            with new_file_beneath(staged, rel) as file:  # (through no link swapped in: see new_file_beneath)
                file.write(_filled(src.read_text(encoding="utf-8"), game_id, title, parts).encode("utf-8"))
            yield rel


def _yaml_text(title: str) -> str:
    """The title as YAML text on game.yaml's `title:` line, quoted where YAML would read it otherwise: pasted
    as it was, '{{ x }}' was a mapping and 'Yes' a boolean, a game that did not validate."""
    import yaml

    # a line break or a control character: not a title, and not one line. Any other character is game.yaml's to
    # judge, as validate does (str.isprintable refused the no-break spaces a French title sets before its ':' and
    # '!', which game.yaml's title prints)
    if LINE_BREAK.search(title) or CONTROL_CHARACTER.search(title):
        raise UsageError(f"--title {shown(title)}: a title is one line of printable text")
    # bytes of the command line that are not UTF-8 come as lone surrogates: written, they were refused as
    # 'malformed YAML' at game.yaml's line, a file the user never wrote, after the game was written and checked
    if SURROGATE.search(title):
        raise UsageError(f"--title {shown(title)}: not UTF-8 text (bytes of another encoding, as the terminal "
                         "sent them?); give the title in UTF-8")
    return yaml.safe_dump(title, allow_unicode=True, width=float("inf")).removesuffix("\n...\n").rstrip("\n")


def _part(start: str, name: str) -> str | None:
    path = SCAFFOLD / start / name
    return path.read_text(encoding="utf-8").rstrip("\n") if path.is_file() else None


def _filled(text: str, game_id: str, title: str, parts: dict[str, str | None]) -> str:
    """A scaffold file with its markers filled in, each in one pass (a title holding '__GAME__' is the title)."""
    for marker, part in parts.items():
        line = f"{marker}\n"
        text = text.replace(line, f"{part}\n" if part else "")
    values = {"__GAME__": game_id, "__TITLE__": _yaml_text(title)}
    return re.sub("|".join(values), lambda found: values[found.group()], text)
