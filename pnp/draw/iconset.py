"""The whole game-icons.net set (4,000+ icons, CC BY 3.0): its names ship with pnp, so `pnp icons search`
works offline; `pnp icons add` takes an icon's drawing from the set's npm package (@iconify-json/game-icons,
fetched once at a pinned version and checked against its published SHA-512, or a copy given with --package)
and writes it into the game's icons folder with its attribution."""

import base64
import functools
import hashlib
import io
import json
import math
import os
import re
import stat
import tarfile
import urllib.request
import zlib
from pathlib import Path
from typing import Any

from ..cache import private_folder
from ..errors import UsageError, why_not_written
from ..options import closest
from ..project import Project
from ..report import Mark, character_named, shown

JSON = dict[str, Any]  # a mapping of the package's icons.json (the set, an icon, an alias)
PACKAGE = "@iconify-json/game-icons"
VERSION = "1.2.4"
TARBALL_URL = f"https://registry.npmjs.org/{PACKAGE}/-/game-icons-{VERSION}.tgz"
# the registry's `dist.integrity` of that version: a download that does not match is refused
INTEGRITY = "sha512-/HDDZxowXgDJcOEwPspUCq5RuDdl25OyZKdtxqqiPJQNTrWIym7r4StLzIVs77DyNzOWWhH5wDqwYR3WHeDfkg=="
NAMES = Path(__file__).resolve().parent.parent / "data" / "game-icons.txt"
LICENCE = "CC BY 3.0 (https://creativecommons.org/licenses/by/3.0/)"
MAX_PACKAGE_BYTES = 16 * 2**20  # the package is 2.7 MB packed, 6.5 MB unpacked
# the package's tarball has 11 members: more, or more bytes unpacked than this before icons.json, is a bomb
MAX_PACKAGE_MEMBERS = 100
DIMENSIONS = ("left", "top", "width", "height")
SVG_OPEN = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="{left} {top} {width} {height}" '
            'width="{width}" height="{height}">')
NAME = re.compile(r"^[a-z0-9][a-z0-9-]*\Z")
# what one search may ask: an icon's name is at most 5 words and 33 characters. 20,000 words took 18 s, 300 unknown
# names to `icons add` (each searched for a hint) 14 s
MAX_SEARCH_WORDS = 12
MAX_SEARCH_WORD = 40
MAX_HINTED = 5  # unknown names of `icons add` given close names; the others are named only


@functools.cache  # read once per process: a refusal asks for close names once per unknown icon
def names() -> tuple[str, ...]:
    """Every icon name of the set (aliases included), sorted."""
    return tuple(ln for ln in NAMES.read_text(encoding="utf-8").splitlines() if ln and not ln.startswith("#"))


def search(words: list[str], limit: int = 40) -> list[str]:
    """Icons whose name holds every word (`sea ship`), else the names closest to them; UsageError for more or
    longer words than a name holds (MAX_SEARCH_WORDS, MAX_SEARCH_WORD)."""
    words = list(dict.fromkeys(w.lower() for w in words if w.strip()))
    if len(words) > MAX_SEARCH_WORDS or any(len(w) > MAX_SEARCH_WORD for w in words):
        raise UsageError(f"icons search: at most {MAX_SEARCH_WORDS} words of at most {MAX_SEARCH_WORD} characters "
                         f"(an icon's name is a few short words), not {shown(' '.join(words))}")
    every = names()
    found = [n for n in every if all(w in n for w in words)]
    if found:
        return found[:limit]
    close = closest("-".join(words), every, count=10, cutoff=0.75)  # a typo: anchr -> anchor
    return close or [n for n in every if any(w in n for w in words)][:limit]


def icon_svg(icon: JSON, iconset: JSON) -> str:
    """A standalone black SVG document for one icon of an Iconify set."""
    dims = {key: icon.get(key, iconset.get(key, default))
            for key, default in (("left", 0), ("top", 0), ("width", 16), ("height", 16))}
    body = icon["body"].replace("currentColor", "#000000")
    return SVG_OPEN.format(**dims) + body + "</svg>\n"


def resolve(name: str, iconset: JSON) -> JSON | None:
    """The icon data for `name`, following aliases; None when the set has no such icon."""
    icons, aliases, seen = iconset.get("icons", {}), iconset.get("aliases", {}), set()
    while name not in icons:
        alias = aliases.get(name)
        if (not isinstance(alias, dict) or name in seen or set(alias) - {"parent"}
                or not isinstance(alias.get("parent"), str)):
            return None
        seen.add(name)
        name = alias["parent"]
    return icons[name]


def load_set(package: Path | None = None) -> JSON:
    """The set's icons.json: from `package` (a .tgz of the npm package, or its unpacked folder) when given,
    else from the verified download kept in pnp's cache (fetched on first use)."""
    if package is not None:
        package = Path(package)
        if package.is_dir():  # (its icons.json is read as the folder holds it: see _read_given's `follow`)
            if not os.path.lexists(package / "icons.json"):  # (the folder the .tgz was unpacked in, say: "cannot
                # be read (No such file or directory)" left the user to guess which folder pnp wanted)
                raise UsageError(f"holds no icons.json: give the {PACKAGE} package's own folder (`package/` of "
                                 "its .tgz) or the .tgz itself", Mark(str(package)))
            return _parsed(_read_given(package / "icons.json", follow=False), f"{package}/icons.json")
        return _from_tarball(_read_given(package), str(package))
    folder = private_folder("game-icons", VERSION)
    kept = folder / f"game-icons-{VERSION}.tgz" if folder else None
    if kept is not None and kept.is_file():
        try:
            data = _read_given(kept)
        except UsageError:
            data = b""  # a damaged cache entry (padded, replaced by a pipe): fetched again
        if _integrity(data) == INTEGRITY:
            return _from_tarball(data, str(kept))
    data = _download()
    if kept is not None:
        from ..project import write_file

        try:
            write_file(kept, data)
        except OSError:
            pass  # no cache: fetched again next time
    return _from_tarball(data, TARBALL_URL)


def _download() -> bytes:
    try:
        with urllib.request.urlopen(TARBALL_URL, timeout=60) as response:  # noqa: S310 - a fixed https address
            data = response.read(MAX_PACKAGE_BYTES + 1)
    except OSError as e:
        raise UsageError(f"cannot fetch {TARBALL_URL} ({e}); download it yourself and give it with "
                         "--package FILE") from None
    if _integrity(data) != INTEGRITY:
        raise UsageError(f"{TARBALL_URL} did not match its published SHA-512: refused")
    return data


def _integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def _read_given(path: Path, follow: bool = True) -> bytes:
    """The bytes of a file given with --package: an ordinary file (never a pipe or device) of at most
    MAX_PACKAGE_BYTES, read no further than that. A link is followed only where `follow` (the path typed): the
    icons.json of a folder given is no link, as a folder someone sent may hold one to any file of the computer
    (pnp read /etc/passwd through it)."""
    from ..project import NotRegularFile, _size_text, open_regular

    if not follow and path.is_symlink():
        raise UsageError(f"a symbolic link (to {shown(os.readlink(path))}): pnp reads the package's own file only, "
                         "not one a link leads to", Mark(str(path)))
    try:
        with open(open_regular(path, follow), "rb") as f:
            data = f.read(MAX_PACKAGE_BYTES + 1)
    except NotRegularFile as e:
        raise UsageError(f"{e.kind}, not an ordinary file", Mark(str(path))) from None
    except OSError as e:
        raise UsageError(f"cannot be read ({e.strerror})", Mark(str(path))) from None
    if len(data) > MAX_PACKAGE_BYTES:
        raise UsageError(f"larger than the icon package can be ({_size_text(MAX_PACKAGE_BYTES)})", Mark(str(path)))
    return data


def _from_tarball(data: bytes, shown: str) -> JSON:
    """The package's icons.json, read from its tarball as a stream: members are counted and their unpacked
    bytes summed as they pass, so a tarball of millions of empty members or of gigabytes of zeros (a few MB
    packed) is refused within MAX_PACKAGE_MEMBERS members or MAX_PACKAGE_BYTES unpacked. The tarball is unpacked
    first, to at most MAX_PACKAGE_BYTES: tarfile reads a member's extended header (pax) whole, at the size its
    header gives, and one of 1.5 GB of zeros (1.4 MB packed) took 3 GB and 39 s before it was refused."""
    try:
        unpacked_tar = _gunzipped(data, shown)
        with tarfile.open(fileobj=io.BytesIO(unpacked_tar), mode="r|") as tar:
            unpacked = 0
            for count, member in enumerate(tar):
                unpacked += member.size
                if count >= MAX_PACKAGE_MEMBERS or unpacked > MAX_PACKAGE_BYTES:
                    break
                if member.name == "package/icons.json" and member.isfile() \
                        and (file := tar.extractfile(member)) is not None:
                    return _parsed(file.read(), f"{shown}: package/icons.json")
    except (tarfile.TarError, OSError, EOFError, zlib.error) as e:
        raise UsageError(f"not the {PACKAGE} package ({type(e).__name__})", Mark(shown)) from None
    raise UsageError(f"not the {PACKAGE} package (no package/icons.json among its first {MAX_PACKAGE_MEMBERS} "
                     f"members and {MAX_PACKAGE_BYTES // 2**20} MB)", Mark(shown))


def _gunzipped(data: bytes, shown: str) -> bytes:
    """The tar inside the gzip `data`; UsageError when it unpacks to more than MAX_PACKAGE_BYTES (read no
    further) or is cut short. zlib.error for what is no gzip."""
    unzip = zlib.decompressobj(16 + zlib.MAX_WBITS)  # (a gzip header and trailer, as npm's tarballs have)
    tar = unzip.decompress(data, MAX_PACKAGE_BYTES + 1)
    if len(tar) > MAX_PACKAGE_BYTES:
        raise UsageError(f"not the {PACKAGE} package (it unpacks to more than {MAX_PACKAGE_BYTES // 2**20} MB)",
                         Mark(shown))
    if not unzip.eof:
        raise UsageError(f"not the {PACKAGE} package (its gzip stream is cut short)", Mark(shown))
    return tar


def _parsed(raw: bytes, shown: str) -> JSON:
    try:
        iconset = json.loads(raw)
    except (ValueError, RecursionError):
        raise UsageError("not JSON (or nested too deep)", Mark(shown)) from None
    if not isinstance(iconset, dict) or not isinstance(iconset.get("icons"), dict):
        raise UsageError("holds no icons", Mark(shown))
    if not isinstance(iconset.get("aliases", {}), dict):
        raise UsageError("its aliases are not a mapping", Mark(shown))
    if fault := _dimension_fault(iconset):
        raise UsageError(fault, Mark(shown))
    return iconset


def _dimension_fault(entry: JSON) -> str | None:
    """What is wrong with an entry's left/top/width/height (each a finite number when given), else None:
    they are written into the SVG's attributes as they are."""
    for key in DIMENSIONS:
        value = entry.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not _finite(value):
            said = json.dumps(value)
            return f"'{key}' is {said[:40]}{'...' * (len(said) > 40)}, not a number"
    return None


def _finite(value: float) -> bool:
    """Whether a number of the set is finite: a whole number of 400 digits, which JSON holds and no float does, is
    not (math.isfinite raised OverflowError at it, 'a bug in pnp')."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _icon_fault(icon: object) -> str | None:
    """What makes an icon entry of the set unusable, else None."""
    if not isinstance(icon, dict) or not isinstance(icon.get("body"), str):
        return "has no 'body' text"
    # (JSON's escapes write any code point, a lone surrogate \ud800 among them: its SVG could not be written as
    # UTF-8, 'a bug in pnp' after the icon's credit was written; a control character no XML file holds made an
    # icon file that no SVG reader reads)
    if (bad := _NOT_IN_XML.search(icon["body"])) is not None:
        return f"'body' holds {character_named(bad.group())}, which no SVG file can hold"
    return _dimension_fault(icon)


_NOT_IN_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def attribution_line(name: str) -> str:
    """The row an added icon gets in its folder's ATTRIBUTION.md."""
    return f"| {name} | {name}.svg | game-icons.net ({PACKAGE} {VERSION}), {LICENCE} |"


ATTRIBUTION_HEAD = ("# Icon attribution\n\nIcons from [game-icons.net](https://game-icons.net/), added with "
                    f"`pnp icons add`. Licence: {LICENCE}; credit game-icons.net in your game.\n\n"
                    "| Icon | File | Source |\n| --- | --- | --- |\n")


def add_icons(project: Project, game_id: str, wanted: list[str], package: Path | None = None) -> list[Path]:
    """Write each wanted icon as layouts/<game>/icons/NAME.svg with its row in that folder's ATTRIBUTION.md;
    an icon already there is left as it is. Returns the files written."""
    from ..project import folder_held, present

    game_id = project.select([game_id])[0]
    _known(wanted)
    folder = project.layouts / game_id / "icons"
    # (a link to nothing is there: the designer's link to an icon kept elsewhere, a shared folder not mounted, was
    # replaced by the set's icon, as Path.exists follows it)
    todo = [n for n in wanted if not present(folder / f"{n}.svg")]
    _refuse_no_file_in_place(project, folder, [n for n in wanted if n not in todo])
    if not todo:
        return []
    _refuse_alike(project, folder, todo)
    iconset = load_set(package)
    drawings = _drawings(todo, iconset)
    _confined(project, folder)
    credits = folder / "ATTRIBUTION.md"
    _credits_text(project, credits)  # read first: a refused file leaves no icon written without its row
    try:  # a file where the icons folder (or the game's layouts folder) goes was "a bug in pnp"
        _made(project, folder)
        _confined(project, folder)  # (made by another pnp since: a link is still refused)
        with folder_held(folder):  # another `icons add` reads and writes the credits after this one
            return _write_icons(project, folder, drawings, iconset)
    except OSError as e:
        named = e.filename if isinstance(e.filename, (str, Path)) else folder
        raise UsageError(f"cannot write the icons there: {why_not_written(e)}", Mark(project.rel(named))) from None


def _made(project: Project, folder: Path) -> None:
    """The icons folder made (and the game's layouts folder), UsageError at a file standing where one goes: mkdir's
    FileExistsError, which why_not_written says as "something that is no ordinary file (a link, a pipe)", where an
    ordinary file stands."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError as e:
        named = e.filename if isinstance(e.filename, (str, Path)) else folder
        raise UsageError("cannot write the icons there: a file, not a folder, stands where their folder goes: "
                         "move it away",
                         Mark(project.rel(named))) from None


def _refuse_no_file_in_place(project: Project, folder: Path, there: list[str]) -> None:
    """UsageError when what stands where a wanted icon goes is neither a file nor a link (a folder, a named pipe):
    it was counted "already in", exit 0, and the icon was never there."""
    import os

    from ..project import not_regular

    for name in there:
        path = folder / f"{name}.svg"
        try:
            mode = os.lstat(path).st_mode
        except OSError:  # (removed since present() saw it: written as any icon not there)
            continue
        kind = None if stat.S_ISLNK(mode) else not_regular(mode)
        if kind is not None:
            raise UsageError(f"{kind} stands where the icon {shown(name)} goes, not an icon file: remove it first",
                             Mark(project.rel(path)))


def _refuse_alike(project: Project, folder: Path, todo: list[str]) -> None:
    """UsageError, before anything is written, at a file of the icons folder whose name differs from an icon's to
    write (or the folder's or its credits' own) only in case or in how its accents are stored (Anchor.svg for anchor): on macOS, Windows or a USB stick
    the icon was written over that file, the designer's own drawing lost, and here it made a second one."""
    from ..project import named_alike

    # the folders and the credits first, as every icon is written there: layouts/<game>/ beside a layouts/<Game>/,
    # icons/ beside a designer's Icons/, or ATTRIBUTION.md beside their attribution.md, made a second folder or
    # file that a copy of the game on such a disk holds as one with theirs (one of the two lost, or the credits)
    for parent, name, what in ((folder.parent.parent, folder.parent.name, "the game's layouts folder"),
                               (folder.parent, folder.name, "the icons folder"),
                               (folder, "ATTRIBUTION.md", "the icons' credits file")):
        if (alike := named_alike(parent, name)) is not None:
            raise UsageError(f"is there, one with {what} {shown(name)} on a disk that does not tell such names apart "
                             "(macOS, Windows, a USB stick): rename it first", Mark(project.rel(parent / alike)))
    for name in todo:
        if (alike := named_alike(folder, f"{name}.svg")) is not None:
            raise UsageError(f"is there, one file with {shown(name + '.svg')} on a disk that does not tell such names "
                             "apart (macOS, Windows, a USB stick), where the icon would be written over it: rename it "
                             "first, or leave the icon out", Mark(project.rel(folder / alike)))


def _write_icons(project: Project, folder: Path, drawings: JSON, iconset: JSON) -> list[Path]:
    """add_icons' writing, in the held icons folder: the rows in the credits of the icons not there yet, then
    those icons."""
    from ..project import present, remove_killed_writes, write_file

    credits = folder / "ATTRIBUTION.md"
    # (a killed `icons add`'s temporaries of the icons and credits: only those names, the folder is the designer's)
    remove_killed_writes(folder, lambda name: name.endswith(".svg") or name == "ATTRIBUTION.md")
    text = _credits_text(project, credits)
    todo = [name for name in drawings if not present(folder / f"{name}.svg")]  # (another pnp's, meanwhile: its row)
    # the credits first, then the icons: a pnp killed (or failing) between the two left an icon without its row,
    # which no later `icons add` gave it (an icon there is left as it is); a row before its icon is made whole then
    rows = [attribution_line(name) for name in todo if f"| {name} |" not in text]
    if rows:
        write_file(credits, (text.rstrip("\n") + "\n" + "\n".join(rows) + "\n").encode("utf-8"))
    for name in todo:
        write_file(folder / f"{name}.svg", icon_svg(drawings[name], iconset).encode("utf-8"))
    return [folder / f"{name}.svg" for name in todo]


def _credits_text(project: Project, credits: Path) -> str:
    """The icons folder's ATTRIBUTION.md as text (the heading alone when there is none yet), read as any file
    of the game is: capped in size, an ordinary file, UTF-8; a LoadError at the file otherwise."""
    from ..model.load import MAX_FILE_BYTES
    from ..project import read_project_file, utf8_text

    if not (credits.exists() or credits.is_symlink()):
        return ATTRIBUTION_HEAD
    shown = project.rel(credits)
    raw = read_project_file(credits, MAX_FILE_BYTES, Mark(shown))
    return utf8_text(raw, shown, ": pnp adds each icon's row to it as text")


def _drawings(todo: list[str], iconset: JSON) -> JSON:
    """Each wanted icon's entry in the set; UsageError naming those it lacks or holds unusable."""
    drawings = {name: resolve(name, iconset) for name in todo}
    if missing := [n for n, icon in drawings.items() if icon is None]:
        raise UsageError(f"the package has no icon {', '.join(repr(n) for n in missing)}")
    if faults := [f"'{n}' {fault}" for n, icon in drawings.items() if (fault := _icon_fault(icon))]:
        raise UsageError(f"the package's icon {'; '.join(faults)}: refused")
    return drawings


def _known(wanted: list[str]) -> None:
    """UsageError naming each name the set does not have, with the names closest to it; first, a name Windows
    keeps for a device (con, aux, com1), whose NAME.svg could not be made or checked out there, whatever a set
    holds (as a component's id and a game's folder are held: project.WINDOWS_DEVICE_NAMES)."""
    from ..project import WINDOWS_DEVICE_NAMES

    if devices := [n for n in wanted if n.casefold() in WINDOWS_DEVICE_NAMES]:
        raise UsageError(f"{shown(devices[0])} is a name Windows keeps for a device: its icon file "
                         f"{shown(devices[0] + '.svg')} could not be made or checked out there; choose another icon")
    every = set(names())
    unknown = [n for n in wanted if not NAME.match(n) or n not in every]
    if unknown:
        hints = "; ".join(f"{shown(n)}: try {', '.join(_closest_names(n)) or 'pnp icons search WORD'}"
                          for n in unknown[:MAX_HINTED])
        more = f"; and {len(unknown) - MAX_HINTED:,} more" if len(unknown) > MAX_HINTED else ""
        raise UsageError(f"no such game-icons.net icon: {hints}{more}")


def _closest_names(name: str) -> list[str]:
    """A few icon names close to `name`, none when it is no search (too many or too long words, or none: an empty
    name was offered the set's first three names, 3d-glasses among them)."""
    if not name.strip(" -"):
        return []
    try:
        return search(name.split("-"), 3)
    except UsageError:
        return []


def _confined(project: Project, folder: Path) -> None:
    """UsageError when the icons folder or its credits file is reached through a link, or lies in a folder pnp
    only reads (cards/, fonts/, .git): as every folder pnp writes into inside the project (output_path), checked
    before anything is made or read there. Each was checked alone, once there: with layouts/ a link out and no
    layouts/<game>/ yet, the folders were made outside the project before it was refused, and a link to .git/
    or cards/ inside the project was written through."""
    from ..project import PROTECTED, output_path

    output_path(project, None, default=folder / "ATTRIBUTION.md", protected=tuple(p for p in PROTECTED if p != "layouts"),
                out_names=None)
