"""What changed in a game, face by face, and a reprint of only that. Every build records a fingerprint of each
printed face in its manifest (what it shows and the data it is made from); comparing them with the game as
it is now names the cards added, removed and changed since that build, or since a git commit (whose files
are validated in a scratch folder). The reprint imposes the changed faces, fronts with their backs, on as
few sheets as they need, through the same kinds that print the whole kit."""

import contextlib
import errno
import hashlib
import json
import os
import re
import signal
import subprocess
import tempfile
import threading
import unicodedata
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ..errors import DataError, UsageError
from ..project import IGNORED_BY_HFS, locked_scratch, windows_renames, name_key, not_regular, on_another_machine, output_lock, program, refuse_unmarked_pdf, read_project_file, repository, special_file
from ..report import Mark, Report, counted, named, pasted, printable, shell_word, shortened, shown
from .faces import FACE_FIELDS, MAX_NAME, item_key, manifest_faces
from .inputs import BuildStart, build_start, manifest_name, refuse_foreign_record
from .manifest import Manifest, record_bytes, sealed, sealing

if TYPE_CHECKING:
    from ..model.game import Game
    from ..printables import Studio
    from ..project import Project
    from ..units import PrintOptions

Fingerprints = tuple[str, str]  # (look, data): the digests of one face (FINGERPRINTS)
FINGERPRINTS = ("look", "data")
SINCE_PREFIX = "pnp-since-"  # the scratch folder of the game at a commit, in the system's temporary folder
Faces = dict[str, dict[tuple[str, str], Fingerprints]]  # {component id: {(item, side): fingerprints}}
Noted = dict[tuple[str, str], list[str]]  # (component id, item) -> notes on its sides

def faces_of(studio: "Studio") -> Faces:
    """{component id: {(item, side): fingerprints}} of the game as it is now."""
    return {c.id: _indexed(manifest_faces(studio, c)) for c in studio.game.components}


def _indexed(rows: Iterable[Sequence[Any]]) -> dict[tuple[str, str], Fingerprints]:
    return {(_text(item), _text(side)): (look, data) for item, side, _, look, data in rows}


def _text(value: object) -> str:
    """A name a manifest gives (a component, an item, a side): printable text of at most MAX_NAME characters,
    as pnp writes it; TypeError otherwise (a number among them could not be sorted with the rest; a control
    character would be printed to the terminal as it is: escape sequences, a line of its own)."""
    if not isinstance(value, str) or len(value) > MAX_NAME or not value.isprintable():
        raise TypeError(f"{shown(value)} is not a name pnp writes")
    return value


@dataclass
class Changes:
    """Faces that differ, as (component id, item) -> sorted list of 'side: look, data' notes."""

    since: str
    added: Noted = field(default_factory=dict)
    removed: Noted = field(default_factory=dict)
    changed: Noted = field(default_factory=dict)

    def reprinted(self) -> dict[str, set[str]]:
        """{component id: item keys} to print again: what was added or changed."""
        out: dict[str, set[str]] = {}
        for component, item in [*self.added, *self.changed]:
            out.setdefault(component, set()).add(item)
        return out

    def lines(self) -> list[str]:
        """A line per item, by component and item (compare keeps each item in one of the three): sorted as
        names, not as (component, item) pairs, which took a second for 150,000 items."""
        by_component: dict[str, dict[str, tuple[str, list[str]]]] = {}
        for what, noted in (("added", self.added), ("changed", self.changed), ("removed", self.removed)):
            for (component, item), notes in noted.items():
                by_component.setdefault(component, {})[item] = (what, notes)
        return [f"  {what:<8} {component} {item}  ({'; '.join(notes)})"
                for component, items in sorted(by_component.items()) for item in sorted(items)
                for what, notes in [items[item]]]


def compare(old: Faces, new: Faces, since: str) -> Changes:
    """The Changes from the `old` faces to the `new` (both as faces_of gives them)."""
    changes = Changes(since)
    for cid in dict.fromkeys([*old, *new]):
        before, after = old.get(cid, {}), new.get(cid, {})
        if before != after:  # (most components are as they were: compared whole, at the speed of C)
            _note_faces(changes, cid, before, after)
    for target in (changes.added, changes.removed):  # an item with some sides kept is changed, not both
        for key in [k for k in target if k in changes.changed or (k in changes.added and k in changes.removed)]:
            changes.changed.setdefault(key, []).extend(target.pop(key))
    return changes


def _note_faces(changes: Changes, cid: str, before: dict[tuple[str, str], Fingerprints],
                after: dict[tuple[str, str], Fingerprints]) -> None:
    """Note in `changes` each face of component `cid` removed, changed or added from `before` to `after`, an
    item's sides in the order listed."""
    for (item, side), a in before.items():
        b = after.get((item, side))
        if b is None:
            changes.removed.setdefault((cid, item), []).append(side)
        elif a != b:
            note = f"{side}: " + ", ".join(w for w, x, y in zip(FINGERPRINTS, a, b) if x != y)
            changes.changed.setdefault((cid, item), []).append(note)
    for item, side in (key for key in after if key not in before):
        changes.added.setdefault((cid, item), []).append(side)


# -- the state a game is compared with ----------------------------------------------------------------------
@dataclass(frozen=True)
class State:
    """The faces of a game in a state it is compared with: a build's manifest (`kind` "manifest", `name` its
    path as shown) or a git commit ("commit", the ref as given)."""

    faces: Faces
    kind: str
    name: str

    @property
    def label(self) -> str:
        """The state as messages say it: a manifest's path, `commit REF`, printable (a file named with a line
        break and an escape sequence, given as --since, printed a line of its own and coloured the terminal),
        a long ref cut short (see REF_SHOWN)."""
        return printable(self.name) if self.kind == "manifest" else f"{self.kind} {since_shown(self.name)}"

    @property
    def recorded(self) -> str:
        """The state as a reprint's record keeps it: the label with its ref whole."""
        return printable(self.name if self.kind == "manifest" else f"{self.kind} {self.name}")

    def key(self) -> str:
        """Eight hex digits naming a reprint by this state (as a selection is named by its expression):
        `--changed-since v1` and `--changed-since v2` are two variants, and one build replaced or removed the
        other's reprint. Made of the kind and the name apart: made of the label, a manifest named `commit v1`
        had the key of commit v1, and each build replaced the other's reprint. The same --changed-since writes
        the same names again."""
        named = json.dumps([self.kind, self.name], ensure_ascii=True)  # (a path not UTF-8: its bytes escaped)
        return hashlib.sha256(named.encode("ascii")).hexdigest()[:8]


# characters of a --since a message quotes: a ref may be any length (`HEAD` and 50,000 `^0` name a commit), and
# "nothing changed since commit ..." printed a 100 KB one whole
REF_SHOWN = 80


def since_shown(since: str) -> str:
    """A --since ref (or a name that is neither a file nor a commit) as a message quotes it: printable, cut
    short when long. The path of a file that is there is quoted whole: the system bounds it, and it is pasted."""
    return printable(shortened(since, REF_SHOWN))


def faces_since(project: "Project", game_id: str, since: str | None, options: "PrintOptions",
                out_root: str | Path) -> State:
    """The State named by `since`: a manifest file, a git commit, or (None) the game's last build in
    out_root."""
    if since is None:
        return _last_build(project, game_id, options, out_root)
    if not since.strip():  # (Path('') is the current folder: it was said to be "a folder, not a build's manifest";
        # a name of spaces alone was said unseen, "--since  : no such file")
        said = "is empty" if not since else "is only spaces"
        raise UsageError(f"--since: {said}; give a build's manifest.json, or a git commit")
    if "\0" in since:  # (no file's name nor ref holds one: the system's calls raised ValueError, 'a bug in pnp')
        raise UsageError(f"--since {since_shown(since)}: holds a NUL character, which no file's name nor git commit's "
                         "may; give a build's manifest.json, or a git commit")
    path = Path(since)
    # (os.path's tests, not Path's: a name too long for the system raised from Path's, a traceback)
    if os.path.isfile(path) and not names_a_file(since):
        # Path drops a trailing '/' (and '/.'): `output/mini/manifest.json/`, the path of a folder, was read as
        # the manifest file, where every other program refuses it ("Not a directory")
        raise UsageError(f"--since {pasted(printable(since))}: ends as the path of a folder, but "
                         f"{pasted(printable(str(path)))} is a file; give it without the trailing "
                         f"'{printable(since[len(str(path)):])}'")
    if os.path.isdir(path) and not _names_a_commit(project, since):  # (a folder is never a manifest: a commit named alike is meant)
        # said as a folder: it was taken for a commit, "the project is in no git repository" (exit 2)
        manifests = sorted(p.name for p in path.glob("manifest*.json") if p.is_file())
        raise UsageError(f"--since {pasted(printable(since))}: is a folder, not a build's manifest; "
                         + (f"give one of its manifests, such as {pasted(shell_word(_as_typed(path / manifests[0])))}"
                            if manifests else "give a build's manifest.json, or a git commit"))
    special = special_file(since)
    if special is not None and not _names_a_commit(project, since):
        # a named pipe (or a device, a socket) is no file os.path.isfile knows: taken for a commit, it was said as
        # "the project is in no git repository", or compared with a commit of that name
        raise UsageError(f"--since {pasted(printable(since))}: is {special}, not a build's manifest (pnp reads only "
                         "ordinary files); give a build's manifest.json, or a git commit")
    if names_a_file(since):
        _not_also_a_commit(project, since)
        # named by its absolute path outside the project (project-relative inside): `manifest.json` given in two
        # folders (two kept builds) was one name, one key, and the reprint since the second replaced the first's
        named = project.rel(os.path.abspath(path))
        return State(read_faces(project, path, game_id, follow=True, drawn=options), "manifest", named)
    return State(_commit_faces(project, game_id, since, options), "commit", since)


def _unsealed_why() -> str:
    """Why the last build's manifest is not taken as one this user's pnp wrote, and what to do: with no record
    kept (the cache off or not writable) a build writes none either, and "build first" sent the user round."""
    if not sealing():
        return ("cannot be told from one received with the game: pnp keeps its record of the manifests it wrote in "
                "its cache, which is off or cannot be written here (PNP_CACHE_DIR); give pnp a cache it can write")
    return ("is not one your pnp wrote there (received with the game, moved, edited, or written with caching "
            "off: PNP_CACHE_DIR); build first")


# builds of other options looked at when the last build's manifest is missing, among the folder's first entries (a
# folder someone sent holds any number)
MANIFESTS_LOOKED_AT, ENTRIES_LOOKED_AT = 64, 10_000


def _last_build(project: "Project", game_id: str, options: "PrintOptions", out_root: str | Path) -> State:
    """The State of the game's last build with these options in out_root: UsageError when there is none."""
    path = Path(out_root) / game_id / manifest_name(options)
    # (os.path's tests, not Path's: `changes --out` a folder name too long for the system raised from Path's)
    if not os.path.isfile(path) and not os.path.islink(path):
        if os.path.exists(path):  # (a folder or a pipe in its place was said to be "missing")
            kind = not_regular(os.stat(path).st_mode) or "not a file"
            raise UsageError(f"{game_id}: no earlier build to compare with: it is {kind}, not a build's manifest",
                             Mark(project.rel(path)))
        raise UsageError(f"{game_id}: no earlier build to compare with ({project.rel(path)} is missing); "
                         + _other_build_said(path))
    if not _sealed_or_unreadable(path):
        # a folder received with its output/ holds a manifest of faces its data never made, which `pnp
        # changes` compared with as the last build, exit 0: only one this user's pnp wrote there is the last
        # build (as only such a manifest makes a kit up to date); one named with --since is the user's choice
        raise UsageError(f"{game_id}: it {_unsealed_why()}, or compare with it anyway: "  # (at it: `PATH: error:`)
                         f"--since {pasted(shell_word(_as_typed(path)))}", Mark(project.rel(path)))
    return State(read_faces(project, path, game_id, drawn=options), "manifest", project.rel(path))


def _other_build_said(missing: Path) -> str:
    """What to do when the manifest of the build compared with by default, `missing`, is missing: compare with the
    last build of other options beside it (`changes` finds the paper's and --ink-saver's by its options: after
    `pnp build GAME --bleed 3` it said to build first), else build first or name a state."""
    last = next(_kit_builds(missing.parent), None)
    if last is not None:
        typed = pasted(shell_word(_as_typed(missing.parent / last[1])))
        return (f"the last build there is {typed}, of other options: compare with it (--since {typed}), or "
                "build with these options first")
    return "build first, or give --since MANIFEST or a git commit"


def newer_build(project: "Project", compared: Path) -> str | None:
    """A note when a build of other options beside the manifest `compared` with by default is newer than it:
    after `pnp build GAME --bleed 3`, `pnp changes GAME` compares with the last build of the home kit's options
    (the paper's and --ink-saver's as given), not that newer one, and only the note tells which the user meant."""
    try:
        since = compared.stat(follow_symlinks=False).st_mtime_ns
    except OSError:
        return None
    last = next(_kit_builds(compared.parent), None)  # (the newest: read no further)
    if last is None or last[0] <= since or last[1] == compared.name:
        return None
    typed = pasted(shell_word(_as_typed(compared.parent / last[1])))
    return (f"compared with {printable(project.rel(compared))}, the last build with these options; {typed}, of "
            f"other options, is newer: --since {typed} compares with it")


def _kit_builds(folder: Path) -> Iterator[tuple[int, str]]:
    """(mtime in ns, name) of the kits' manifests in `folder` that this user's pnp wrote, newest first (each
    told as it is asked for: the first found ends the search)."""
    found: list[tuple[int, str]] = []
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for looked, entry in enumerate(entries):
            if len(found) >= MANIFESTS_LOOKED_AT or looked >= ENTRIES_LOOKED_AT:
                break
            if _KIT_MANIFEST.fullmatch(entry.name) and entry.is_file(follow_symlinks=False):
                found.append((entry.stat(follow_symlinks=False).st_mtime_ns, entry.name))
    return ((mtime, name) for mtime, name in sorted(found, reverse=True)
            if not (folder / name).is_symlink() and _sealed_or_unreadable(folder / name))


# a kit's manifest, of any options (manifest_name); not a reprint's or a selection's
_KIT_MANIFEST = re.compile(r"manifest(?!-reprint-|-selection-)(?:-[^/]*)?\.json")


def names_a_file(since: str) -> bool:
    """Whether `since`, as typed, names a file (or a link to one): the path as the system reads it, where a
    trailing '/' or '/.' names a folder, never a file (as Path, which drops them, would not say)."""
    return os.path.isfile(since)


def _as_typed(path: Path) -> str:
    """`path` as the user may type it here: relative to the current folder when within it, else absolute."""
    relative = os.path.relpath(path)
    return os.path.abspath(path) if relative.startswith("..") else relative


def _sealed_or_unreadable(path: Path) -> bool:
    """Whether the manifest at `path` was sealed by this user's pnp, or cannot be read (a link, a folder: read_faces
    then says why, naming it)."""
    try:
        return path.is_symlink() or not path.is_file() or sealed(path)
    except OSError:
        return True


def _not_also_a_commit(project: "Project", since: str) -> None:
    """UsageError when `since`, the name of a file, also names a commit of the project's repository, as git
    refuses an argument both a path and a revision: a file `HEAD` or `v1` beside the project (one a received
    folder holds) was compared with in place of the commit the user meant, said only as "since HEAD" rather
    than "since commit HEAD", exit 0. A repository git may not be run on safely names no commit here."""
    if _names_a_commit(project, since):
        said = printable(since)
        raise UsageError(f"--since {pasted(said)}: names both a file and a git commit of {project.root}; give "
                         f"{pasted('./' + said)} for the file, or {pasted(said + '^{commit}')} for the commit")


def _names_a_commit(project: "Project", since: str) -> bool:
    """Whether `since` names a commit of the project's repository (False when there is none, or git may not be
    run on it safely)."""
    if since.startswith("-") or _repository(project) is None:
        return False
    try:
        _own_repository(project)
        done = _ran(_git_command(project, "rev-parse", "--verify", "--quiet", f"{since}^{{commit}}"))
    except (UsageError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0 and _OBJECT_ID.fullmatch(done.stdout.decode("ascii", "replace").strip()) is not None


# the print options that change what a face shows, so its fingerprint (the others place faces on sheets): faces
# drawn with other values all differ (a kit built with --ink-saver had every coloured card "changed" since the
# same game's kit without it, exit 0). A draft marks only items with errors, which no compared game has.
FACE_OPTIONS = {"ink_saver": "--ink-saver"}


def read_faces(project: "Project", path: Path, game_id: str, follow: bool = False,
               drawn: "PrintOptions | None" = None) -> Faces:
    """The faces a build of `game_id` recorded in its manifest, as faces_of gives them (`follow`: the user named
    the file; `drawn`: the options the faces it is compared with are drawn with, to be its own FACE_OPTIONS).
    UsageError for another game's manifest: compared with it, every face was added or removed, and a reprint
    printed the whole game with exit 0."""
    where = project.rel(path)
    manifest = Manifest.read(path, where, follow)
    game = manifest.head.get("game")
    if not isinstance(game, str):
        raise UsageError("not a pnp manifest: it names no game", Mark(where))
    if game != game_id:
        raise UsageError(f"this is the manifest of {shown(game)}, not of {game_id}: give one of {game_id}'s "
                         "builds", Mark(where))
    if manifest.components is None:  # told to build again with --force, which never makes this file a build's
        raise UsageError(f"not a build's manifest but {_record_of(manifest.head)} (it lists no components); give "
                         "a build's manifest", Mark(where))
    if manifest.face_fields != FACE_FIELDS:
        raise UsageError("written by a pnp that did not record faces; build again with --force to compare later "
                         "changes with it", Mark(where))  # (at its place, as the refusals above: it was `Error: PATH ...`)
    _not_too_many(manifest.components, where)
    drawn_with = drawn.record() if drawn is not None else {}
    for key, flag in FACE_OPTIONS.items() if drawn_with else ():
        made_with = manifest.head.get(key) is True
        if made_with != drawn_with[key]:
            said = "with" if made_with else "without"
            raise UsageError(f"this build was made {said} {flag}, which changes how every face looks: compare it "
                             f"{said} {flag}", Mark(where))
    try:
        return dict(_component_faces(c) for c in manifest.components)
    except TypeError as e:  # (said in pnp's words: Python's, "KeyError('id')", were printed)
        raise UsageError(f"not a pnp manifest: its components are not as pnp writes them ({e})",
                         Mark(where)) from None


def _component_faces(component: object) -> tuple[str, dict[tuple[str, str], Fingerprints]]:
    """(id, faces) of one component a manifest lists; TypeError, saying what is amiss, unless it is written as
    pnp writes it: a mapping of an id and faces, each face a row of FACE_FIELDS whose fingerprints are text."""
    if not isinstance(component, dict) or "id" not in component or not isinstance(component.get("faces"), list):
        raise TypeError("a component without its id and faces")
    cid = _text(component["id"])
    for row in component["faces"]:
        if not isinstance(row, list) or len(row) != len(FACE_FIELDS) or not all(isinstance(v, str) for v in row[-2:]):
            raise TypeError(f"a face of {cid} is not a row of {', '.join(FACE_FIELDS)}")
    return cid, _indexed(component["faces"])


# the key each of pnp's other records holds in its head, and what it is a record of (a selection's was said to be
# "an export's or a reprint's")
_RECORDS_BY_KEY = (("selection", "a selection's record"), ("since_kind", "a reprint's record"),
                   ("format", "an export's record"))


def _record_of(head: Mapping[str, object]) -> str:
    """Which record of pnp's, not a build's manifest, a manifest of `head` is, as its keys tell."""
    return next((what for key, what in _RECORDS_BY_KEY if key in head), "another record of pnp's")


# the faces and components a manifest may list together: pnp writes a face as a row of at least 122 bytes (and a
# component in more), so one it wrote within inputs.MANIFEST_MAX_BYTES lists fewer (a game of 10,000 cards lists
# 20,000 faces); 16 MB of one-letter rows listed 700,000, which took 30 s to compare and list
MAX_MANIFEST_FACES = 150_000


def _not_too_many(components: list, where: str) -> None:
    """UsageError at the manifest when its components and their faces together are more than MAX_MANIFEST_FACES."""
    listed = len(components) + sum(len(c["faces"]) for c in components
                                   if isinstance(c, dict) and isinstance(c.get("faces"), list))
    if listed > MAX_MANIFEST_FACES:
        raise UsageError(f"not a manifest pnp wrote: it lists {listed:,} faces and components together, and one "
                         f"pnp writes within its size cap lists at most {MAX_MANIFEST_FACES:,}", Mark(where))


# Reading a commit runs nothing the received folder's own .git/config names: no filter (only `git archive`,
# checkout and `cat-file --filters` apply them; ls-tree and plain cat-file --batch do not), no fsmonitor, no
# hook, no pager, no system-wide config.
_GIT_SAFE = ["-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "--no-pager",
             "-c", "advice.graftFileDeprecated=false",  # (its 8 lines of hints came before what git found amiss)
             # the commit-graph and multi-pack-index only speed up a long walk of history, and git maps each whole:
             # a received repository's (sparse) 3 GB commit-graph made git fail as out of memory (see MAX_GIT_MEMORY)
             # on every commit, said 'neither a manifest file nor a git commit'; one that lies gave HEAD~1 other
             # parents than the commits hold. git reads the commits themselves instead
             "-c", "core.commitGraph=false", "-c", "core.multiPackIndex=false",
             "-c", "core.packedGitWindowSize=32m", "-c", "core.packedGitLimit=128m"]  # its maps within MAX_GIT_MEMORY
# the memory (address space) each git process may take: git reads a commit or tree object whole, and a commit
# of a 1.5 GB message (1.5 MB compressed: a received repository's HEAD) took 1.5 GB and a minute to say
# nothing had changed; past this, git stops at once (malloc fails), its reason said. A file of the commit is
# at most MAX_BLOB_BYTES, which git may hold twice (a delta's base and result: 250 MB took git 490 MB), so
# that a commit just below the cap still takes git less than 1 GB and a few seconds
MAX_GIT_MEMORY = 640 << 20
# the processor time each git process may take: a received pack of 340 KB held a blob of 200 MB made by a chain
# of 2,000 deltas, each copying its base whole, which git rebuilt step by step (400 GB copied: 7 minutes, pnp's
# watchdog killing it only after 120 s); past this, the system stops git (a commit's 256 MB of files, read
# from an ordinary pack, take git about a second)
MAX_GIT_SECONDS = 10
_GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "GIT_PAGER": "cat"}
# one file of a commit: past every input's own cap (a picture's 200 MB, images.MAX_IMAGE_BYTES, is the
# largest; every reader refuses a file by its size before it reads a byte), so no reader takes it: such a file
# is written as a stand-in of its size holding no bytes (a sparse file), which its reader refuses for its size
# as in the project itself, and nothing of it is read from git. (At 256 MB, a file of 250 MB of zeros, 250 KB
# in the repository and read by nothing, was inflated and written out whole: 6 s.)
MAX_BLOB_BYTES = 200 * 1024 * 1024
# all the files of the game at a commit that are written out (stand-ins aside): a little more than any one
# input may be
MAX_COMMIT_BYTES = 256 * 1024 * 1024
# the files of the game at a commit: each is written to a scratch folder, a round trip to git (a commit of
# 600,000 files ran for minutes); a game with a picture per card has a few hundred
MAX_COMMIT_FILES = 20_000
MAX_LINK_TARGET = 4096  # the longest target of a symbolic link a system makes (Linux's PATH_MAX)
# the folders a file of the commit may sit in, one in another: Python makes (Path.mkdir) and removes (shutil.rmtree)
# a folder's parents and children by recursion, and a received commit's file 1,990 folders deep (its path within
# the system's 4,096 bytes) was 'This is a bug in pnp' (RecursionError); a game's own are a few deep
MAX_COMMIT_DEPTH = 256
# the folders the game's files at a commit sit in, all told: a tree of one folder 250 deep, named by 20,000
# entries of a tree (a repository of 300 objects), had 5 million folders made; a game's own are a few dozen
MAX_COMMIT_FOLDERS = 10_000
# one entry git ls-tree lists (its mode, kind, id, size and path): a path no system can hold is refused as it
# is listed, at 64 KB; a tree of one name of 200 MB (200 KB compressed) was read whole, copied four times
# over (875 MB), and only then refused as too long for the system
MAX_LISTED_ENTRY = 64 * 1024
MAX_GIT_METADATA_BYTES = 64 * 1024 * 1024  # one file of the git folder besides objects/: refs of 500,000 tags
# one object id, as `rev-parse --verify` prints a commit (SHA-1 or SHA-256): it printed '^' and the id for
# `^HEAD` (a range's excluded end), which git's other commands then refused as no object
_OBJECT_ID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
# (a size of BAD: git finds the object missing or damaged)
_TREE_ENTRY = re.compile(r"(\d+) (\w+) ([0-9a-f]+) +(-|\d+|BAD)\t(.*)", re.S)


# what in a repository makes git read another folder: objects kept elsewhere, a worktree's common folder
_ELSEWHERE = ("objects/info/alternates", "objects/info/http-alternates", "commondir")
_CONFIGS = ("config", "config.worktree")  # the repository's config files git reads (the second with worktreeConfig)
_GITDIR = re.compile(rb"gitdir: (.+?)[\r\n]*\Z", re.S)  # as git reads a .git file: only line ends dropped


def _repository(project: "Project") -> tuple[Path, Path] | None:
    """(git folder, work tree) of the repository the project is in (project.repository). git is pinned to it
    (--git-dir): left to look for itself, it took a project folder holding HEAD, objects/ and refs/ for a
    repository of its own, whose config nothing had checked."""
    return repository(project.root)


def _own_repository(project: "Project") -> None:
    """UsageError, naming the file, when the repository the project is in (its own .git, or one above it: a
    folder someone sent may hold the project in a subfolder) would make git read or run outside it: a .git
    file or link naming a repository elsewhere, objects or config taken from other folders, a named pipe."""
    found = _repository(project)
    if found is None:
        raise UsageError("--since: the project is in no git repository")
    dotgit, work_tree = found
    try:
        git_dir = _git_folder(project, dotgit, work_tree)
        real = project.inside(git_dir, Mark(project.rel(dotgit)), "git folder", hidden=True) if work_tree == project.root \
            else _held_by(project, dotgit, git_dir, work_tree)  # the project's own is kept inside it; one above holds the project
        _owned(project, dotgit, real, work_tree)
        if not real.is_dir():  # (a .git link to nowhere was said at its target's name, as a folder pnp cannot read)
            raise DataError(f"the git folder it names, {named(project.rel(real))}, is missing or no folder",
                            Mark(project.rel(dotgit)))
        _links_inside(project, real)  # (before the layout is looked at: a link out of the folder is not followed)
        _laid_out(project, real)
        for name in _ELSEWHERE:
            if (real / name).exists():
                raise DataError(f"{project.rel(real / name)} makes git read another folder; pnp reads only "
                                "the project", Mark(project.rel(real / name)))
        for config in (real / name for name in _CONFIGS):
            if config.exists() or config.is_symlink():
                read_project_file(config, 1 << 20, Mark(project.rel(config)))  # an ordinary file, not too large
                _no_setting_elsewhere(project, config)
    except DataError as e:
        raise UsageError(f"--since: the project's git repository cannot be read safely: {e.message}",
                         e.mark) from None


def _owned(project: "Project", dotgit: Path, git_dir: Path, work_tree: Path) -> None:
    """DataError at the first of the repository's work tree, .git and git folder that another user owns, unless
    the user's git config trusts it (safe.directory), as git refuses such a repository ("dubious ownership"):
    pinned with --git-dir, git ran on a /tmp/.git another user of the machine made above a game unpacked in /tmp,
    and its commit was compared with as the game's."""
    if not hasattr(os, "geteuid"):  # (Windows: git asks who owns a folder otherwise; not checked here)
        return
    users = {os.geteuid()} | ({int(os.environ["SUDO_UID"])} if os.geteuid() == 0
                              and os.environ.get("SUDO_UID", "").isdigit() else set())  # (as git does under sudo)
    foreign = next((path for path in (work_tree, dotgit, git_dir) if _owner(path) not in (None, *users)), None)
    if foreign is not None and not _trusted(work_tree, git_dir):  # (git's config asked once, if at all)
        raise DataError("it belongs to another user of this machine; git runs on no such repository "
                        "(unless your git config's safe.directory names it), nor does pnp", Mark(project.rel(foreign)))


def _owner(path: Path) -> int | None:
    """The user id owning `path`, None when it cannot be looked at (one missing is said next, as such)."""
    try:
        return os.stat(path).st_uid
    except OSError:
        return None


def _trusted(work_tree: Path, git_dir: Path) -> bool:
    """Whether the user's own git config (global) names the repository as safe.directory, or '*' (every one)."""
    try:
        listed = _ran(["git", "config", "--global", "--get-all", "safe.directory"], cwd="/",
                      env={"GIT_DIR": os.devnull + "/none"})
    except (UsageError, subprocess.TimeoutExpired):
        return False
    named_here = {os.path.realpath(work_tree), os.path.realpath(git_dir)}
    return any(entry == "*" or os.path.realpath(entry) in named_here
               for entry in listed.stdout.decode(errors="replace").splitlines() if entry)


# what git needs in a git folder to take it for one (is_git_directory): HEAD a file, objects/ and refs/ folders
_GIT_LAYOUT = (("HEAD", os.path.isfile, "a file"), ("objects", os.path.isdir, "a folder"),
               ("refs", os.path.isdir, "a folder"))


def _laid_out(project: "Project", git_dir: Path) -> None:
    """DataError at the file at fault when the git folder lacks HEAD, objects/ or refs/ as git needs them (a HEAD
    that is a folder, no objects/: git said only "not a git repository: '/abs/proj/.git'", naming no file)."""
    for name, fits, kind in _GIT_LAYOUT:
        if not fits(git_dir / name):
            there = os.path.lexists(git_dir / name)
            raise DataError(f"the git folder's {name} is {'not ' + kind if there else 'missing'}, so git takes it for "
                            "no repository", Mark(project.rel(git_dir / name if there else git_dir)))


def _held_by(project: "Project", dotgit: Path, git_dir: Path, work_tree: Path) -> Path:
    """The real git folder of a repository above the project, when it is kept in that repository's own folder
    (`work_tree`); DataError otherwise: a .git file or link in the folder holding the project (one a received
    folder holds) named any repository on the disk, whose objects and config git then read."""
    real = git_dir.resolve()
    if not real.is_relative_to(work_tree.resolve()):
        raise DataError(f"git folder {shown(str(real))} is outside the folder {shown(str(work_tree))} whose .git "
                        "names it; pnp reads no repository kept elsewhere", Mark(project.rel(dotgit)))
    return real


def _git_folder(project: "Project", dotgit: Path, work_tree: Path) -> Path:
    """The git folder of the repository whose .git is `dotgit`: itself, or the folder named by its "gitdir:
    PATH" line (a worktree's or a submodule's). git is given this folder, never the .git file: read each in
    its own way, `gitdir: .g ` (a space after) made pnp check .g while git used '.g ', a folder nothing
    checked (its objects taken from a repository outside the project). DataError for any other .git file."""
    if not dotgit.is_file():
        return dotgit
    named = _GITDIR.fullmatch(read_project_file(dotgit, 4096, Mark(project.rel(dotgit))))
    if named is None:
        raise DataError("this .git file is not one line 'gitdir: PATH'", Mark(project.rel(dotgit), 1, 1))
    git_dir = work_tree / os.fsdecode(named.group(1))
    if on_another_machine(git_dir):  # (refused before a resolve() looks at it: a network share on Windows)
        raise DataError(f"it names git folder {shown(str(git_dir))} of another machine (a network share); pnp "
                        "reads no repository kept elsewhere", Mark(project.rel(dotgit), 1, 1))
    return git_dir


# settings of a repository's config that make git reach beyond it, as git names them (lowercase): an included
# file (read wherever it is, a named pipe among them for good), and a partial clone's promisor remote, from
# which git fetches a missing object on its own, running the remote's uploadpack command or ssh
_ELSEWHERE_SETTINGS = {r"include(if)?\..*": "it includes other config files",
                       r"extensions\.partialclone|remote\..*\.promisor": "it makes git fetch missing objects "
                       "from another repository (a partial clone), running the commands that repository names"}


def _no_setting_elsewhere(project: "Project", config: Path) -> None:
    """DataError when the config file holds a setting that makes git read or run outside the project
    (_ELSEWHERE_SETTINGS). git's own parser finds them (a pattern missed an [include] after a byte-order mark
    or after another header on its line); it runs outside any repository, since git in this one would read
    its config, includes and all, before anything else."""
    for pattern, why in _ELSEWHERE_SETTINGS.items():
        command = ["git", "config", "--file", str(config), "--no-includes", "--name-only", "--get-regexp",
                   f"^({pattern})$"]
        try:
            # (in git's own words, whatever the user's language: the line it could not parse is read from them)
            found = _ran(command, cwd="/", env={"GIT_DIR": os.devnull + "/none", "LC_ALL": "C", "LANGUAGE": "C"})
        except subprocess.TimeoutExpired:
            raise DataError("git cannot read it", Mark(project.rel(config))) from None
        if found.returncode == 0:
            raise DataError(f"{why}; pnp reads only the project", Mark(project.rel(config)))
        if found.returncode != 1:  # 1: none; else git cannot parse it, and would refuse the repository
            raise _unparsed(project, config, found.stderr.decode(errors="replace"))


def _unparsed(project: "Project", config: Path, said: str) -> DataError:
    """The DataError for a config file git cannot parse, at the line git names ('bad config line 6 in file
    /abs/path', which was said in git's words at the file alone); in git's words when it names none."""
    line = re.search(r"bad config line (\d+) in file ", said)
    if line is not None:
        return DataError("git cannot parse this line of the config (no section header, nor a name and value as "
                         "git writes them)", Mark(project.rel(config), int(line.group(1)), 1))
    return DataError(f"git cannot read it: {printable(said.strip()[:200])}", Mark(project.rel(config)))


# entries of the git folder looked at before git runs: a repository's own are thousands (objects are packed;
# git packs loose ones past 6,700), and each costs a look: 200,000 empty loose refs took 35 s to check, where
# git itself answered in milliseconds
MAX_GIT_ENTRIES = 100_000


def _links_inside(project: "Project", git_dir: Path) -> None:
    """DataError at the first link in the git folder that leads out of it: git follows them, so a linked
    objects/pack, refs or config would make it read another repository or file of the user's. (A link kept
    within the folder leads where the walk goes anyway, so a link beyond it is found wherever it is.) Also at
    the first file that is no ordinary file: git waits on a named pipe (packed-refs, HEAD) for good; and when
    the folder holds more than MAX_GIT_ENTRIES entries. Walked with scandir, whose entries know their kind
    without a look at each file (os.walk and pathlib looked three times at each)."""
    objects = str(git_dir / "objects")
    folders, seen = [(str(git_dir), False)], 0  # (folder, whether it is objects/ or in it)
    while folders:
        folder, in_objects = folders.pop()
        for entry in _git_folder_listed(project, git_dir, folder):
            seen += 1
            if seen > MAX_GIT_ENTRIES:
                raise DataError(f"the git folder holds more than {MAX_GIT_ENTRIES:,} files; pnp reads no "
                                "repository that large", Mark(project.rel(git_dir)))
            if entry.is_dir(follow_symlinks=False):
                folders.append((entry.path, in_objects or entry.path == objects))
            else:
                _git_file_checked(project, git_dir, entry, in_objects)


def _git_folder_listed(project: "Project", git_dir: Path, folder: str) -> Iterator["os.DirEntry[str]"]:
    """The entries of one folder of the git folder. DataError when it cannot be listed: one with no read
    permission may still hold a link git follows by name (refs/heads/main), and one nested past the system's
    path length (a .git received with folders 3,000 deep) was 'a bug in pnp' (OSError, its path 6,000
    characters long); pnp runs git on no folder it cannot check."""
    try:
        listing = os.scandir(folder)
    except OSError as e:
        why = "nested past the system's path length" if e.errno == errno.ENAMETOOLONG else \
            e.strerror or type(e).__name__
        raise DataError(f"the git folder holds a folder pnp cannot read ({why}): "
                        f"{named(project.rel(Path(folder)))}; pnp runs git on no repository it cannot check",
                        Mark(project.rel(git_dir))) from None
    with listing:
        yield from listing


def _git_file_checked(project: "Project", git_dir: Path, entry: "os.DirEntry[str]", in_objects: bool) -> None:
    """DataError when one entry of the git folder (not a folder) is a link out of it, no ordinary file, or
    metadata git reads whole that is too large (_small_metadata); `in_objects`: it is in objects/."""
    if entry.is_symlink():
        path = Path(entry.path)
        real = project.inside(path, Mark(project.rel(path)), "git file", hidden=True)
        if not real.is_relative_to(git_dir):
            raise DataError(f"git file '{project.rel(path)}' is a link out of the git folder; git would "
                            "read there", Mark(project.rel(path)))
        _small_metadata(project, git_dir, path)
    elif not entry.is_file(follow_symlinks=False):
        kind = not_regular(entry.stat(follow_symlinks=False).st_mode)
        raise DataError(f"git file '{project.rel(entry.path)}' is {kind}; git would wait on it",
                        Mark(project.rel(entry.path)))
    elif not in_objects and entry.stat(follow_symlinks=False).st_size > MAX_GIT_METADATA_BYTES:
        _small_metadata(project, git_dir, Path(entry.path))  # (which says so)
    elif in_objects and entry.name.endswith(_MAPPED_WHOLE) and entry.stat(follow_symlinks=False).st_size > MAX_MAPPED_BYTES:
        raise DataError(f"git file '{project.rel(entry.path)}' is larger than {MAX_MAPPED_BYTES >> 20} MB, and git maps it "
                        f"whole within the {MAX_GIT_MEMORY >> 20} MB pnp lets it take", Mark(project.rel(entry.path)))


# the files of objects/ git maps whole to read any object of a pack (its index, its reverse index), and how large
# each may be: a received pack's (sparse) 1 GB index made git fail on every commit, 'mmap failed', naming no file
# (a pack of 10 million objects, past any game's repository, has an index of 280 MB)
_MAPPED_WHOLE = (".idx", ".rev")
MAX_MAPPED_BYTES = MAX_GIT_MEMORY // 2


def _small_metadata(project: "Project", git_dir: Path, path: Path) -> None:
    """DataError when a git file outside objects/ (packed-refs, HEAD, a ref) is larger than any repository's:
    git reads such a file whole, so a 2 GB packed-refs took 2 GB of memory before git said anything. Objects
    are not looked at: git reads of a pack only the parts it needs, and each file of a commit is capped."""
    if path.is_relative_to(git_dir / "objects") or not path.is_file():
        return
    if path.stat().st_size > MAX_GIT_METADATA_BYTES:
        raise DataError(f"git file '{project.rel(path)}' is larger than {MAX_GIT_METADATA_BYTES >> 20} MB; git "
                        "would read it whole", Mark(project.rel(path)))


def _memory_capped() -> None:
    """Run in each git process before git starts: its address space capped at MAX_GIT_MEMORY, its processor time
    at MAX_GIT_SECONDS."""
    try:
        import resource
    except ImportError:  # (Windows: no such limit)
        return
    resource.setrlimit(resource.RLIMIT_AS, (MAX_GIT_MEMORY, MAX_GIT_MEMORY))
    resource.setrlimit(resource.RLIMIT_CPU, (MAX_GIT_SECONDS, MAX_GIT_SECONDS))


def _git_command(project: "Project", *args: str) -> list[str]:
    """git run in the project on the repository _own_repository checked, and no other."""
    found = _repository(project)
    pinned = [f"--git-dir={_git_folder(project, *found)}", f"--work-tree={found[1]}"] if found is not None else []
    return ["git", "-C", str(project.root), *pinned, *_GIT_SAFE, *args]


def _started(command: list[str], stdin: int = subprocess.DEVNULL, stderr: int = subprocess.PIPE,
             cwd: str | None = None, env: Mapping[str, str] | None = None) -> "subprocess.Popen[bytes]":
    """A git `command` started as pnp runs every git: its output piped, none of the user's GIT_ variables but
    _GIT_ENV (and `env`), its memory capped (_memory_capped); UsageError when git is not installed."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    git = program(command[0])
    if git is None:
        raise UsageError("comparing with a commit needs git, which is not installed")
    try:
        return subprocess.Popen(command, executable=git, stdin=stdin, stdout=subprocess.PIPE, stderr=stderr,
                                cwd=cwd, env={**kept, **_GIT_ENV, **(env or {})}, preexec_fn=_memory_capped)
    except FileNotFoundError:
        raise UsageError("comparing with a commit needs git, which is not installed") from None
    except OSError as e:  # (out of processes or memory)
        raise UsageError(f"git could not be started: {e.strerror}") from None


def _ran(command: list[str], cwd: str | None = None,
         env: Mapping[str, str] | None = None) -> "subprocess.CompletedProcess[bytes]":
    """A git `command` (_started) run to its end, what it printed and said kept; subprocess.TimeoutExpired,
    git killed, past 60 s."""
    with _started(command, cwd=cwd, env=env) as git:
        try:
            out, said = git.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            git.kill()
            raise
    return subprocess.CompletedProcess(command, git.returncode, out, said)


def _git(project: "Project", *args: str) -> bytes:
    try:
        done = _ran(_git_command(project, *args))
    except subprocess.TimeoutExpired:
        raise UsageError(f"git {args[0]} took more than 60 s") from None
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace")
        raise UsageError(f"git {args[0]}: {said.strip()}", _named_by_git(project, said))
    return done.stdout


def _named_by_git(project: "Project", said: str) -> Mark | None:
    """The file of the repository's git folder that git names in what it `said` as it failed ("loose object ...
    (stored in PATH) is corrupt", "failed to read object ... from PATH"), as a message marks it; None when it names
    none. A damaged object of a received repository was said as the option's fault, `Error: --since HEAD: ...`."""
    found = _repository(project)
    if found is None:
        return None
    try:
        git_dir = str(_git_folder(project, *found))
    except DataError:
        return None
    for hit in re.finditer(re.escape(git_dir) + r"(?:/[\w.-]+)+", said):  # (objects, packs: hex digits, dots, dashes)
        if os.path.isfile(hit.group(0)):
            return Mark(project.rel(hit.group(0)))
    for words, name in _SAID_OF_FILES:  # (git's words for a file it reads whole, whose path it leaves out)
        if words in said and os.path.isfile(os.path.join(git_dir, name)):
            return Mark(project.rel(os.path.join(git_dir, name)))
    return _config_of_bad_value(project, Path(git_dir), said)


def _config_of_bad_value(project: "Project", git_dir: Path, said: str) -> Mark | None:
    """The config file of the repository holding the setting git refused as of the wrong type ("bad numeric config
    value '1e400' for 'core.packedgitlimit'", naming no file: said as the --since's fault); None when none of its
    config files holds it (the user's own config may)."""
    bad = re.search(r"bad (?:numeric|boolean) config value '.*' for '([\w.-]+)'", said)
    if bad is None:
        return None
    for config in (git_dir / name for name in _CONFIGS):
        try:
            held = os.path.isfile(config) and _ran(["git", "config", "--file", str(config), "--no-includes",
                                                     "--get-all", bad.group(1)], cwd="/",
                                                    env={"GIT_DIR": os.devnull + "/none"}).returncode == 0
        except (UsageError, subprocess.TimeoutExpired):
            held = False
        if held:
            return Mark(project.rel(config))
    return None


# what git says of a damaged file of its folder that it does not name, and that file (a config of a repository
# format or extension this git does not know: said as the --since's fault, 'neither a manifest file nor a git commit')
_SAID_OF_FILES = (("bad shallow line", "shallow"), ("bad graft data", "info/grafts"),
                  ("Expected git repo version", "config"), ("unknown repository extension", "config"))


# the names git tries for a ref, in its order (git rev-parse's "dwim" rules), and how many symbolic refs it follows
# one after another before it gives up (SYMREF_MAXDEPTH)
_REF_RULES = ("{}", "refs/{}", "refs/tags/{}", "refs/heads/{}", "refs/remotes/{}", "refs/remotes/{}/HEAD")
_SYMREF_DEPTH = 5


def _stays_in_git_folder(name: str) -> bool:
    """Whether a ref's name, joined to the git folder, names a file in it: no part empty or hidden ('..' among
    them), as git allows none; any other character git may allow in a name is allowed."""
    return all(part and not part.startswith(".") for part in name.split("/")) and not {"\\", "\0"} & set(name)


def _bad_ref(project: "Project", ref: str) -> DataError | None:
    """Why git cannot read the ref a --since names, at the ref file at fault, when pnp can tell: HEAD (which git
    reads for any command) or the first file git takes for the name holding neither an object id nor 'ref: NAME',
    or naming no ref, or symbolic refs naming one another. None otherwise (git's own words then say it). A
    received repository's damaged ref file was said only as "neither a manifest file nor a git commit"."""
    found = _repository(project)
    if found is None:
        return None
    try:
        git_dir = _git_folder(project, *found)
    except DataError:
        return None
    # (os.path's tests, not Path's, here and below: a name past the system's length, a ref of 400 digits, raised
    # from Path's, 'This is a bug in pnp')
    name = re.split(r"[~^:]|@\{", ref)[0]
    head = git_dir / "HEAD"
    problem = _ref_file_fault(project, git_dir, head, follow=False) if os.path.isfile(head) else None
    if problem is not None or not _stays_in_git_folder(name if name not in ("", "@") else "HEAD"):
        return problem
    name = name if name not in ("", "@") else "HEAD"
    for rule in _REF_RULES:
        path = git_dir / rule.format(name)
        # (git reads a name of its folder itself only as refs/... or in capitals, as HEAD: never objects/...)
        if rule == "{}" and not (name.startswith("refs/") or re.fullmatch(r"[A-Z_]+", name)):
            continue
        if os.path.isfile(path):
            return _ref_file_fault(project, git_dir, path, follow=True)
    return None


def _ref_file_fault(project: "Project", git_dir: Path, path: Path, follow: bool) -> DataError | None:
    """Why git cannot read the ref file `path` (_bad_ref), at the file at fault; None when it holds an object id,
    or (`follow`) names a ref that is there, through at most _SYMREF_DEPTH symbolic refs."""
    seen: list[Path] = []
    while True:
        try:
            with open(path, "rb") as file:
                line = os.fsdecode(file.read(4096).partition(b"\n")[0].strip())  # (the bytes a file's name has)
        except OSError:
            return None
        if _OBJECT_ID.fullmatch(line):
            return _missing_object(project, path, line) if follow else None
        target = line.removeprefix("ref:").strip()
        if not line.startswith("ref:") or not target:
            return DataError(f"this ref file holds {shown(shortened(line, REF_SHOWN))}, neither an object id nor "
                             "'ref: NAME'; git cannot read it", Mark(project.rel(path), 1, 1))
        if not follow or not _stays_in_git_folder(target):  # (one that leaves it: git's own words say why)
            return None
        seen.append(path)
        path = git_dir / target
        if path in seen or len(seen) > _SYMREF_DEPTH:
            return DataError(f"this ref file names {shown(target)}, which leads back to it through symbolic refs; "
                             "git cannot read it", Mark(project.rel(seen[0]), 1, 1))
        if not os.path.isfile(path):
            if b" " + os.fsencode(target) + b"\n" in _packed_refs(git_dir):
                return None
            return DataError(f"this ref file names {shown(target)}, which is no ref of the repository (a branch of no "
                             "commit yet, or one removed); git cannot read it", Mark(project.rel(seen[-1]), 1, 1))


def _missing_object(project: "Project", path: Path, oid: str) -> DataError | None:
    """A DataError at the ref file `path` when the repository holds no object `oid`, which it names (a repository
    copied in part): said as "neither a manifest file nor a git commit", which named no file."""
    try:
        asked = _ran(_git_command(project, "cat-file", "-e", oid))
    except (UsageError, subprocess.TimeoutExpired):
        return None
    if asked.returncode != 1 or asked.stderr.strip():  # (1 and nothing said: no such object; else git refused)
        return None
    return DataError(f"this ref file names object {oid}, which the repository does not hold (a damaged or partly "
                     "copied repository); git cannot read it", Mark(project.rel(path), 1, 1))


def _packed_refs(git_dir: Path) -> bytes:
    """The repository's packed-refs file (at most MAX_GIT_METADATA_BYTES: _links_inside), or nothing."""
    try:
        with open(git_dir / "packed-refs", "rb") as file:
            return file.read(MAX_GIT_METADATA_BYTES)
    except OSError:
        return b""


def _commit_named(project: "Project", ref: str) -> str:
    """The object id of the one commit `ref` names in the project's (checked) repository; UsageError, in the
    name given, when it names none."""
    named = ref
    try:
        # named first, then taken to its commit: a suffix on the name itself made `:/fix typo` (the newest commit
        # whose message says it) search for 'fix typo^{commit}' and refused it as no commit
        named = _git(project, "rev-parse", "--verify", "--quiet", ref).decode("ascii").strip()
        commit = _git(project, "rev-parse", "--verify", "--quiet", f"{named}^{{commit}}").decode("ascii").strip()
    except UsageError as e:  # git says nothing of a ref it does not know, and why of a repository it refuses
        bad = _bad_ref(project, ref) if e.mark is None else None
        if bad is not None:  # (at the ref file: `Error: --since HEAD: neither ...` named none)
            raise UsageError(f"--since {since_shown(ref)}: {bad.message}", bad.mark) from None
        said = e.message.partition(": ")[2].replace(named, ref).replace(ref, since_shown(ref))  # the name given, not its id
        if e.mark is not None:  # a file of the repository git named: a damaged object
            raise UsageError(f"--since {since_shown(ref)}: git cannot read this file of the repository (git: {said})",
                             e.mark) from None
        raise UsageError(f"--since {since_shown(ref)}: neither a manifest file nor a git commit of {project.root}"
                         + (f" (git: {said})" if said else "") + _why_no_commit(project, ref)) from None
    if not _OBJECT_ID.fullmatch(commit):  # git's answer to a range's end (`^HEAD`: '^' and an id), no one commit
        raise UsageError(f"--since {since_shown(ref)}: neither a manifest file nor a git commit of {project.root} "
                         "(it names a range of commits; give one commit)")
    return commit


_RANGE = re.compile(r"\.\.|\^[!@]|\^-\d*$")  # how git writes a range of commits (gitrevisions(7))


def _why_no_commit(project: "Project", ref: str) -> str:
    """What more may be said of a `ref` that names no commit, as a message's end ('' when nothing): a range
    (`v1..v2`, `v2^!`, `v2^@`, `v2^-`, which git's rev-parse --verify refuses, as no name of a ref may hold '..' or
    '^'), or a repository that
    is a shallow clone, which holds only its newest commits (HEAD~10 of a clone of depth 5). Each was said only
    as "neither a manifest file nor a git commit", which sent the user looking for a mistyped name."""
    if _RANGE.search(ref.split(":", 1)[0]) and "{/" not in ref:  # (not in a path after ':', nor in ^{/words})
        return "; it names a range of commits: give one commit (the older end, to compare with it)"
    found = _repository(project)
    try:
        shallow = found is not None and os.path.isfile(_git_folder(project, *found) / "shallow")
    except DataError:
        return ""
    return ("; the repository is a shallow clone, holding only its newest commits (git fetch --deepen=N or "
            "--unshallow fetches older ones)") if shallow else ""


def _commit_faces(project: "Project", game_id: str, ref: str, options: "PrintOptions") -> Faces:
    """The faces of the game as it was at a git commit: its files written to a scratch project, validated
    and resolved there; none when the game was not in that commit."""
    from ..project import Project

    if ref.startswith("-"):
        raise UsageError(f"--since {since_shown(ref)}: neither a manifest file nor a git commit")
    if _repository(project) is None:  # (said of the name given: "the project is in no git repository" alone, for a
        # mistyped manifest's name, sent the user to look for a repository)
        raise UsageError(f"--since {since_shown(ref)}: no such file, and the project is in no git repository "
                         "to name a commit of; give a build's manifest.json")
    _own_repository(project)
    commit = _commit_named(project, ref)
    # only git's line end is dropped, and the bytes kept as the system names them: strip() took the space
    # off a folder ' kits' (then "not in that commit"), and a name not UTF-8 was a traceback
    prefix = os.fsdecode(_git(project, "rev-parse", "--show-prefix").removesuffix(b"\n"))
    # a game made since the commit (or a project whose folder was made since) had no faces then: every one of
    # them is added, as its first build would say, and `build --changed-since` of every game reprints it whole
    # (the whole command was refused for it)
    if prefix:  # the project is a folder of the repository: ls-tree said only that it "could not list" a commit
        try:       # made before that folder was
            _git(project, "rev-parse", "--verify", "--quiet", f"{commit}:{prefix}")
        except UsageError:
            return {}
    wanted = [f"cards/{game_id}", f"layouts/{game_id}", "layouts/shared", "fonts"]
    entries = _tree(project, ref, commit, prefix, wanted)
    if not any(path.startswith(f"cards/{game_id}/") for _, _, path, _ in entries):
        return {}
    from ..check import validate  # (only now: its imports took 3 s before a ref git does not know was refused)
    from ..draw.pictures import checked_only

    # (a folder the next run removes if this one is killed: a TemporaryDirectory, killed, was left for good)
    with locked_scratch(Path(tempfile.gettempdir()), SINCE_PREFIX) as tmp:
        root = tmp / "project"
        _write_tree(project, ref, entries, root)
        scratch = Project(root.resolve())
        report = Report(scratch.root)
        with checked_only():  # (its faces are compared, never drawn: its pictures need not be kept encoded)
            game, studio = validate(scratch, game_id, report, options)
        if studio is None or report.errors:
            first = report.errors[0] if report.errors else None
            at = Mark(f"{since_shown(ref)}:{first.mark.file}", first.mark.line, first.mark.col) if first and first.mark else None
            raise UsageError(f"{game_id} at {since_shown(ref)} does not validate ({counted(len(report.errors), 'error')}"
                             + (f"; the first: {first.message}" if first else "")
                             + "), so its faces cannot be compared; compare with a build's manifest instead", at)
        return faces_of(studio)


def _tree(project: "Project", ref: str, commit: str, prefix: str, wanted: list[str]) -> list[tuple[str, str, str, int]]:
    """[(mode, object id, path, size)] of the files under `wanted` at the commit (`ref` as given, `commit` its
    object id): blobs and symbolic links (a
    submodule has no files here). UsageError for a path that would leave the scratch folder, or files too
    large to write out together."""
    listed = _listing(project, ref, "ls-tree", "-r", "-l", "-z", "--full-tree", f"{commit}:{prefix}", "--", *wanted)
    entries, total = [], 0
    spelt: dict[tuple[int, str], tuple[int, str]] = {}  # (see _one_spelling)
    for row in filter(None, listed.decode("utf-8", errors="surrogateescape").split("\0")):
        found = _TREE_ENTRY.fullmatch(row)
        if found is None:
            raise UsageError(f"--since {since_shown(ref)}: git ls-tree listed {named(row)}, which is no entry of a tree")
        mode, kind, oid, size, path = found.groups()
        if kind != "blob":
            continue
        if size == "BAD":  # (a damaged object was said as "git ls-tree: cannot read '100644 blob ... BAD...'")
            raise UsageError(f"--since {since_shown(ref)}: the commit's file {named(path)} cannot be read: git finds its "
                             "object missing or damaged", _object_file(project, oid))
        _writable(ref, path)
        _one_spelling(ref, path, spelt)
        if mode == "120000" and int(size) > MAX_LINK_TARGET:  # (never read: a 250 MB target took 570 MB)
            raise UsageError(f"--since {since_shown(ref)}: the commit's link {named(path)} cannot be made: its target is "
                             "longer than any system allows")
        total += int(size) if int(size) <= MAX_BLOB_BYTES else 0  # (a stand-in: see MAX_BLOB_BYTES)
        if total > MAX_COMMIT_BYTES:
            raise UsageError(f"--since {since_shown(ref)}: the game's files at that commit are too large to compare (more than "
                             f"{MAX_COMMIT_BYTES // 2**20} MB in all, at {named(path)}); compare with a build's manifest "
                             "instead")
        entries.append((mode, oid, path, int(size)))
    return entries


def _writable(ref: str, path: str) -> None:
    """UsageError when the commit's file at `path` would not be written within the scratch folder as it names it:
    a path leaving it, naming a .git, Windows' folders or drives, or nested past MAX_COMMIT_DEPTH."""
    parts = path.split("/")
    if path.startswith("/") or any(part in ("", ".", "..") for part in parts):
        raise UsageError(f"--since {since_shown(ref)}: the commit holds a file named {named(path)}, which pnp does not read")
    if "\\" in path or (os.name == "nt" and ":" in path):
        # Windows takes a backslash for a folder's end (and 'C:' for a drive): a received commit's file
        # 'cards/g/..\\..\\..\\x' was written there outside the scratch folder. Refused on every system alike,
        # as git for Windows refuses to check such a file out
        raise UsageError(f"--since {since_shown(ref)}: the commit's file {named(path)} holds a backslash"
                         + (" or a colon" if os.name == "nt" else "") + ", which Windows takes for a folder's "
                         "end or a drive; pnp does not write it out")
    if len(parts) > MAX_COMMIT_DEPTH:  # (said before any is written: see MAX_COMMIT_DEPTH)
        raise UsageError(f"--since {since_shown(ref)}: the commit holds a file {len(parts):,} folders deep, at "
                         f"{named(path)}; pnp writes out at most {MAX_COMMIT_DEPTH} deep")



def _one_spelling(ref: str, path: str, spelt: dict[tuple[int, str], tuple[int, str]]) -> None:
    """UsageError when a part of the commit's file's `path` (_writable's) is no name to write on every system
    (_part_refused), or a file or folder already listed but for case or Unicode form: one file on a disk blind to
    those (macOS, Windows), where the second was refused as 'File exists', in the system's words, and compared
    on Linux. `spelt` holds each folder and file listed, part by part ((its folder's number, name_key of its
    name) -> (its own number, its name as spelt)), so a part is looked at once, not in each path it begins."""
    parts, folder = path.split("/"), 0
    for n, part in enumerate(parts):
        key = (folder, name_key(part))
        if key not in spelt:
            _part_refused(ref, path, part, len(spelt))
            spelt[key] = (len(spelt) + 1, part)
        own, as_spelt = spelt[key]
        if as_spelt != part:
            raise UsageError(f"--since {since_shown(ref)}: the commit's {named('/'.join(parts[:n + 1]))} and "
                             f"{named('/'.join([*parts[:n], as_spelt]))} differ only in case or in how their "
                             "accents are stored: one file on a disk that does not tell such names apart (macOS, "
                             "Windows); pnp does not write them out")
        folder = own


def _part_refused(ref: str, path: str, part: str, listed: int) -> None:
    """UsageError when `part` of the commit's file's `path`, not met before (`listed` files and folders were),
    is no name pnp writes: a .git by any spelling, a name Windows writes elsewhere, or one more file or folder
    than a commit may hold."""
    if _names_git(part):
        raise UsageError(f"--since {since_shown(ref)}: the commit holds a file named {named(path)}, which pnp does not read")
    if windows_renames(part):
        # Windows opens 'con', 'nul', 'com1.yaml'... as a device (a commit's file 'cards/g/com1.yaml' was written to
        # a serial port, out of the scratch folder) and drops a name's final dots and spaces ('a.yaml.' was written
        # over 'a.yaml'). Refused on every system alike, as git for Windows refuses to check such a file out
        raise UsageError(f"--since {since_shown(ref)}: the commit's file {named(path)} holds {named(part)}, which "
                         "Windows reads as a device's name or as another name; pnp does not write it out")
    if listed >= MAX_COMMIT_FILES + MAX_COMMIT_FOLDERS:
        raise UsageError(f"--since {since_shown(ref)}: the game has more than {MAX_COMMIT_FOLDERS:,} folders at that "
                         f"commit, at {named(path)}; pnp writes out at most that many")


def _names_git(part: str) -> bool:
    """Whether a commit's path part names a .git folder on some system: '.GIT' where names are told apart by
    no case (macOS, Windows), '.git.' or '.git ' (Windows drops the end), 'git~1' (Windows' short name) or
    '.g\u200cit' (macOS ignores the character)."""
    plain = unicodedata.normalize("NFC", part.translate(IGNORED_BY_HFS)).casefold().rstrip(". ")
    return plain in (".git", "git~1")


def _object_file(project: "Project", oid: str) -> Mark | None:
    """The loose object file of `oid` in the project's repository, as a message marks it; None when it is not one
    (packed, or missing)."""
    found = _repository(project)
    try:
        path = _git_folder(project, *found) / "objects" / oid[:2] / oid[2:] if found is not None else None
    except DataError:
        return None
    return Mark(project.rel(path)) if path is not None and os.path.isfile(path) else None


def _listing(project: "Project", ref: str, *args: str) -> bytes:
    """What a git command lists, one entry per NUL; UsageError once it lists more than MAX_COMMIT_FILES (read
    no further: a tree of millions of entries is listed in gigabytes)."""
    with tempfile.TemporaryFile() as said:  # (a file, not a pipe: a pipe git filled while pnp read would stop it)
        listed, code = _listed(ref, _started(_git_command(project, *args), stderr=said.fileno()))
        if code != 0:  # at the file git names (a damaged tree object): it was said as the option's fault alone
            raise UsageError(f"--since {since_shown(ref)}: git {args[0]} could not list the files of the commit",
                             _named_by_git(project, _said(said)))
    return listed


def _said(file: IO[bytes]) -> str:
    """The start of what a git said into `file` (its stderr)."""
    file.seek(0)
    return file.read(1 << 16).decode(errors="replace")


def _listed(ref: str, git: "subprocess.Popen[bytes]") -> tuple[bytes, int]:
    """(what `git` lists, its exit code): _listing's reading of it."""
    assert git.stdout is not None  # piped
    watchdog = threading.Timer(60, git.kill)
    watchdog.start()
    chunks, entries, pending = [], 0, 0  # pending: the bytes of the entry not yet ended by its NUL
    try:
        while chunk := git.stdout.read(1 << 20):
            chunks.append(chunk)
            parts = chunk.split(b"\0")
            entries += len(parts) - 1
            longest = max(pending + len(parts[0]), *map(len, parts[1:]))
            pending = pending + len(parts[0]) if len(parts) == 1 else len(parts[-1])
            if entries > MAX_COMMIT_FILES:
                raise UsageError(f"--since {since_shown(ref)}: the game has more than {MAX_COMMIT_FILES:,} files at that commit; "
                                 "pnp compares at most that many")
            if longest > MAX_LISTED_ENTRY:
                raise UsageError(f"--since {since_shown(ref)}: the commit holds a file whose name is longer than any "
                                 "system allows; pnp compares no such commit")
        code = git.wait()  # all listed: git is ending, not to be killed
    finally:
        watchdog.cancel()
        if git.poll() is None:
            git.kill()
        git.wait()
    return b"".join(chunks), code


def _write_tree(project: "Project", ref: str, entries: list[tuple[str, str, str, int]], root: Path) -> None:
    """Write the commit's files under `root` from their blobs, read with `git cat-file --batch` (which
    applies no filter), a file past MAX_BLOB_BYTES as a stand-in of its size; symbolic links are made last,
    so no file is ever written through one (a link that leaves the scratch project is refused when it is
    read, as in any project)."""
    with tempfile.TemporaryFile() as said:  # (what git says of an object it cannot read: see _object_at)
        git = _started(_git_command(project, "cat-file", "--batch"), stdin=subprocess.PIPE, stderr=said.fileno())
        links = _written(project, ref, entries, root, git, said)
    for path, link in links:
        _link(ref, root, path, link)


def _written(project: "Project", ref: str, entries: list[tuple[str, str, str, int]], root: Path,
             git: "subprocess.Popen[bytes]", said: IO[bytes]) -> list[tuple[str, str]]:
    """_write_tree's writing of the files from `git` (cat-file --batch, its stderr into `said`): the links to
    make, (path, target)."""
    links = []
    assert git.stdin is not None and git.stdout is not None  # piped
    watchdog = threading.Timer(MAX_GIT_WAIT, git.kill)
    watchdog.start()
    # every name asked at once, by a thread of its own, while the objects are read: asked one by one, each
    # waited for git's answer (16,000 files took 16 s of turns between the two processes)
    asked = [oid for _, oid, _, size in entries if size <= MAX_BLOB_BYTES]  # a stand-in's blob is never read
    feeder = threading.Thread(target=_ask_all, args=(git.stdin, asked), daemon=True)
    feeder.start()
    path, oid = "", ""
    try:
        for mode, oid, path, size in entries:
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            if size > MAX_BLOB_BYTES:  # (never asked of git: see `asked`)
                with open(target, "xb") as stand_in:
                    stand_in.truncate(size)
                continue
            # (a header is an id, a kind and a size: read no further than one can be long)
            header = git.stdout.readline(_MAX_HEADER).split()
            if len(header) != 3 or header[1] != b"blob" or int(header[2]) > MAX_BLOB_BYTES:
                raise UsageError(f"--since {since_shown(ref)}: git cat-file could not read {named(path)}",
                                 _object_at(project, oid, git, said))
            if mode == "120000":
                links.append((path, git.stdout.read(int(header[2])).decode("utf-8", errors="surrogateescape")))
            else:
                _copy(git.stdout, int(header[2]), target)
            if git.stdout.read(1) != b"\n":  # the newline after each object, or the object is not its size
                raise UsageError(f"--since {since_shown(ref)}: git cat-file could not read {named(path)} (a damaged "
                                 "object: longer than its size)", _object_at(project, oid, git, said))
    except OSError as e:
        if e.filename is not None:  # the scratch folder's refusal, not git's: a name too long for the system
            raise UsageError(f"--since {since_shown(ref)}: the commit's file {shown(path)} cannot be written out: "
                             f"{e.strerror}") from None
        raise UsageError(f"--since {since_shown(ref)}: git cat-file failed ({e.strerror})") from None
    except ValueError as e:
        raise UsageError(f"--since {since_shown(ref)}: git cat-file could not read {shown(path)}: "
                         f"{_why_ended(git, str(e))}", _object_at(project, oid, git, said)) from None
    finally:
        watchdog.cancel()
        git.kill()
        git.wait()
        feeder.join()
    return links


def _object_at(project: "Project", oid: str, git: "subprocess.Popen[bytes]", said: IO[bytes]) -> Mark | None:
    """The file of the repository holding the object `oid` that `git` could not read: its loose object, else the
    file git names in what it `said` (a damaged pack: a packed blob was said as 'the blob ended early', naming no
    file). git is stopped first: what it said of the object came before the output pnp read."""
    found = _object_file(project, oid)
    if found is not None:
        return found
    git.kill()
    git.wait()
    return _named_by_git(project, _said(said))


# the longest header `git cat-file --batch` writes before an object: an id (64 hex digits at most), its kind and
# its size. A damaged loose object (its header saying 11 bytes, its body 2 GB of zeros) was written whole by git
# after its 11 bytes: the next header, read as a line, was a line of 2 GB, held in memory (4 GB, 45 s)
_MAX_HEADER = 128


def _link(ref: str, root: Path, path: str, link: str) -> None:
    """The commit's symbolic link `path` made under `root`; UsageError naming it when the system cannot make
    it (a target of thousands of bytes or holding a NUL byte, or a file of the commit already in its place)."""
    try:
        (root / path).symlink_to(link)
    except ValueError:  # os.symlink's word for a NUL byte
        raise UsageError(f"--since {since_shown(ref)}: the commit's link {named(path)} cannot be made: its target holds a NUL "
                         "byte") from None
    except OSError as e:
        raise UsageError(f"--since {since_shown(ref)}: the commit's link {named(path)} cannot be made: {e.strerror}") from None


# the seconds pnp waits for `git cat-file` to write out a commit's files before it stops it
MAX_GIT_WAIT = 120


def _why_ended(git: "subprocess.Popen[bytes]", found: str) -> str:
    """Why git's output ended before its object did: git stopped at the processor time every git is allowed
    (_memory_capped), or by pnp's watchdog, else what pnp `found`. A pack whose delta chain expands 340 KB into
    400 GB of copying was said as 'git cat-file failed (the blob ended early)', which told nothing."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        git.wait(timeout=2)  # (its output ended: it is ending)
    if git.returncode == -getattr(signal, "SIGXCPU", -1):
        return (f"git took more than the {MAX_GIT_SECONDS} s of processor time pnp allows it (an object that "
                "expands hugely: a damaged or hostile repository)")
    if git.returncode == -getattr(signal, "SIGKILL", -1):
        return f"git was stopped after {MAX_GIT_WAIT} s"
    return found


def _ask_all(stdin: IO[bytes], oids: list[str]) -> None:
    """Write the object names to `git cat-file --batch`, then end its input; quietly stop when git is gone
    (killed after a refusal, or by the watchdog)."""
    with contextlib.suppress(OSError):
        with stdin:
            stdin.write("".join(oid + "\n" for oid in oids).encode())


def _copy(source: IO[bytes], size: int, target: Path) -> None:
    with open(target, "xb") as out:
        while size:
            block = source.read(min(size, 1 << 20))
            if not block:
                raise ValueError("it ended before its size: a damaged object")
            out.write(block)
            size -= len(block)


# -- the reprint --------------------------------------------------------------------------------------------
def selected(game: "Game", keys: Mapping[str, Collection[str]]) -> "Game":
    """A copy of the game whose components keep only the items named in `keys` ({component id: item keys});
    every copy of a kept item is kept; a component of no items (a rulebook, a tuck box: those whose text is a
    face of its own, faces.TEXT) is kept whole. Components with nothing selected are left out. (A component was
    kept whole when the item key 'text' was selected: the change of a card whose id is `text` reprinted its
    whole deck, said to be a reprint of 1 item.)"""
    from ..products.base import distinct  # (here: `pnp changes` says a build is missing without the products)

    components = []
    for component in game.components:
        wanted = keys.get(component.id)
        if not wanted:
            continue
        if not component.items:
            components.append(component)
            continue
        kept = {id(item) for index, (item, _) in enumerate(distinct(component.items)) if item_key(item, index) in wanted}
        items = [item for item in component.items if id(item) in kept]
        if items:
            components.append(replace(component, items=items, count=len(items)))
    return replace(game, components=components)


def write_selection(studio: "Studio", keys: Mapping[str, Collection[str]], target: Path, what: str = "reprint",
                    record: "tuple[Path, Callable[[Path, int], bytes]] | None" = None) -> int:
    """Print the selected items of the studio's game into one PDF at `target`, each kind as it prints in the
    kit (fronts with their backs, duplex-correct). Returns its page count; 0, and no file, when nothing is
    selected. A component kept whole is drawn by the game's own studio (a rulebook sees every component).
    `record`: the PDF's manifest (its path, and its bytes made from the PDF written and its pages), put in place
    with the PDF all or none (commit_files, in a folder whose lock the caller holds): written one after the other,
    a pnp killed between the two left a reprint or proof beside the manifest of the previous one, which said
    other items, pages or sha256 than it held."""
    from ..printables import Studio
    from ..project import commit_files, open_to_write, temporary_beside
    from .render import by_kind, new_canvas

    subset = selected(studio.game, keys)
    if not subset.components:
        Path(target).unlink(missing_ok=True)
        return 0
    whole = {id(c) for c in studio.game.components}
    part = Studio(subset, studio.options, budget=studio.budget)  # (within the game's budget, as the kit it is part of)
    part.marks = studio.marks  # a draft's marks name the same data items
    pages = 0
    made = [temporary_beside(target), *([temporary_beside(record[0])] if record is not None else [])]
    try:
        canvas = new_canvas(made[0], studio, what)
        for kind, components in by_kind(subset):
            for component in components:
                pages += kind.draw(canvas, component, studio if id(component) in whole else part)
        canvas.save()
        renames = {made[0]: Path(target)}
        if record is not None:
            with open_to_write(made[1]) as file:  # (not through a link swapped in for the temporary)
                file.write(record[1](made[0], pages))
            renames[made[1]] = record[0]
        commit_files(renames)
    finally:
        for tmp in made:
            tmp.unlink(missing_ok=True)
    return pages


def game_changes(project: "Project", game_id: str, since: str | None, options: "PrintOptions", out_root: str | Path,
                 report: Report) -> tuple[Changes, "Studio"] | tuple[None, None]:
    """(Changes, studio) of one game from the state `since` names to its files now; (None, None) when the
    game does not validate now (the errors are in `report`)."""
    old = faces_since(project, game_id, since, options, out_root)
    from ..check import validate  # (after: a build missing is said without loading the engine)

    game, studio = validate(project, game_id, report, options)
    if studio is None or report.errors:
        return None, None
    return compare(old.faces, faces_of(studio), old.label), studio


def states_before(project: "Project", games: list[str], since: str, options: "PrintOptions",
                  out_root: Path) -> dict[str, State]:
    """{game: State} of the state `--changed-since` names, read before the build replaces it."""
    if names_a_file(since) and len(games) != 1:
        raise UsageError("--changed-since MANIFEST compares one game: name it")
    try:
        return {g: faces_since(project, g, since, options, out_root) for g in games}
    except UsageError as e:  # said of `changes --since`: here the state is named by build's --changed-since
        if not e.message.startswith("--since"):
            raise
        raise UsageError("--changed-since" + e.message.removeprefix("--since"), e.mark) from None


def _refuse_changed_since_kit(project: "Project", game_id: str, kit: Path, start: "BuildStart") -> None:
    """UsageError, at the file, when the game's files the reprint was just drawn from (read since `start`) are not
    those its kit, whose manifest is `kit`, was drawn from: the reprint draws the faces that manifest names as
    changed from the files as they are, so a card saved between the kit and its reprint (an editor's save while
    pnp built) was reprinted as the kit does not print it (or as it was before its change), exit 0."""
    from .inputs import record

    drawn_from = Manifest.read(kit, project.rel(kit)).inputs.get("files") or {}
    now = record(project, game_id, start, [project.root / name for name in drawn_from if name not in start.digests])
    differ = sorted(name for name in drawn_from.keys() | now["files"].keys()
                    if drawn_from.get(name) != now["files"].get(name))
    if differ:
        raise UsageError("changed since the kit was drawn from it, so a reprint would not print what "
                         "the kit does; build again", Mark(printable(differ[0])))


@dataclass
class Reprint:
    """What a reprint of the changed faces wrote beside a game's kit: `path` (None when nothing changed), its
    pages, how many items it holds, since when, and the changes line by line."""

    path: Path | None
    pages: int
    items: int
    since: str
    lines: list[str]


def write_reprint(project: "Project", game_id: str, folder: Path, state: State, options: "PrintOptions") -> Reprint:
    """The reprint of what changed in a just-built game since `state`, written beside its kit in `folder`: the
    build's manifest has the faces as they are now, so the game is validated again only to draw what changed.
    A reprint left by the same --changed-since is removed when nothing changed; one since another state is
    another variant, named by it (State.key), and left as it is."""
    from ..check import validate

    what = f"reprint-{state.key()}"
    target = folder / f"{game_id}-{what}-{options.paper}{options.variant}.pdf"
    recorded = folder / manifest_name(options, what)  # what the reprint holds and since when
    kit = folder / manifest_name(options)
    pages = 0
    # with the folder's lock, as the kit was written: the reprint was written beside another build's kit as
    # it wrote, and no manifest said what it held or since when (the kit's manifest read within it too: read
    # before, another build's kit could replace it before the reprint was drawn)
    with output_lock(folder, project.rel(folder)):
        changes = compare(state.faces, read_faces(project, kit, game_id), state.label)
        keys = changes.reprinted()
        refuse_unmarked_pdf(target, "the reprint", project.rel)  # (replaced, or removed when nothing changed)
        refuse_foreign_record(recorded, game_id, "the reprint", project.rel)  # (so is its manifest)
        if keys:
            checked = Report(project.root)
            start = build_start(project, game_id)
            _, studio = validate(project, game_id, checked, options)
            _refuse_changed_since_kit(project, game_id, kit, start)
            if studio is not None:  # a draft's reprint marks its items' errors, as the draft kit does
                studio.mark_data_errors(checked.diagnostics)
            def record(_: Path, pages: int) -> bytes:
                return record_bytes({"game": game_id, **options.record(), "since": state.recorded, "since_kind": state.kind,
                                     "file": target.name, "pages": pages,
                                     "items": {cid: sorted(items) for cid, items in sorted(keys.items())}})

            pages = write_selection(studio, keys, target, record=(recorded, record)) if studio is not None else 0
        if not pages:  # both in one step (commit_files, all or none): removed one after the other, a pnp killed
            # between the two left the reprint's manifest, said of no file, until the same --changed-since ran again
            from ..project import commit_files

            for path in (target, recorded):  # (a folder there is said, as removing it by name said it: kept)
                if path.is_dir() and not path.is_symlink():
                    raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
            commit_files({}, [target, recorded])
            return Reprint(None, 0, 0, state.label, [])
    return Reprint(target, pages, sum(len(v) for v in keys.values()), state.label, changes.lines())
