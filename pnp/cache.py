"""Work kept on disk between runs: a value made from some input (a template's source, an icon's file) is
written once and read back by every later run that needs it, as Python keeps a module's bytecode.

Each cache is a folder named by a digest of everything its values depend on besides their own input (the
versions of Python and of the libraries that made them, and the code that made them), so a stale or foreign
entry is never read; each entry is named by a digest of its input. Values are what `marshal` writes (code,
numbers, text, tuples and lists of them), after a checksum of them and of their input: an entry that does not match it, or
whose value is not of the shape its caller expects, is made again and rewritten, never used. PNP_CACHE_DIR chooses where the folders go (`off`: nowhere; a relative path: nowhere either); a
folder must be private to the user (its files become code) and outside the project and the repository holding it
(keep_out_of), and one that cannot be read or written is simply
not used."""

import hashlib
import json
import marshal
import os
import re
import stat
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from .errors import TEMPORARY_NAME
from .project import open_file, write_file


def _base() -> Path | None:
    """Where the cache folders go; None for none. A relative place (XDG_CACHE_HOME=cache, HOME empty) is
    not used, as the XDG spec says: it would be inside whatever folder pnp runs in, often a game someone sent,
    whose own cache folder, planted there, would become code."""
    chosen = os.environ.get("PNP_CACHE_DIR")
    if chosen == "off":
        return None
    try:
        base = Path(chosen) if chosen else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pnp"
    except RuntimeError:  # no HOME, and a user the system has no entry for (a container run as any uid): none
        return None
    return base if base.is_absolute() else None


_OUT_OF_BOUNDS = "PNP_NO_CACHE_IN"  # the folders no cache may lie in (keep_out_of), kept for the processes pnp starts


def keep_out_of(*folders: Path) -> None:
    """Keep no cache inside `folders`: the project pnp works on and the repository it is in. A game someone sent
    may carry a cache folder of its own, and with PNP_CACHE_DIR pointing into the project (a CI caching its
    workspace while it checks a received pull request) its planted entries, well formed, would be loaded as code;
    so would those of a pull request to a repository holding the project in a subfolder, whose workspace is the
    repository's (only the project's folder was kept out). Each is kept by its name and by its identity (device
    and inode): a folder has other names than the one resolve gives, which a comparison of names missed, and a
    CI's PNP_CACHE_DIR naming the workspace so (through a bind mount, in other letter case or Unicode
    normalization on a disk that ignores them, as macOS's does) put the cache inside the project, whose planted
    entries were run as a template's code."""
    kept = []
    for folder in folders:
        real = folder.resolve()
        try:
            info = real.stat()
            kept.append([str(real), info.st_dev, info.st_ino])
        except OSError:  # (not there: kept by its name alone)
            kept.append([str(real), None, None])
    os.environ[_OUT_OF_BOUNDS] = json.dumps(kept)  # (JSON: any name)


def _in_bounds(real: Path) -> bool:
    """Whether the resolved cache folder `real` lies outside every folder keep_out_of named: neither it nor
    any folder holding it is one of them, by name or by identity."""
    try:
        kept_out = json.loads(os.environ.get(_OUT_OF_BOUNDS) or "[]")
        names = [Path(name) for name, _, _ in kept_out]
        identities = {(device, inode) for _, device, inode in kept_out if device is not None}
    except (ValueError, TypeError):  # not as keep_out_of writes it (set by hand): no cache, rather than one where
        return False  # it may not be
    if any(real == name or name in real.parents for name in names):
        return False
    for folder in (real, *real.parents):
        try:
            info = os.stat(folder)
        except OSError:  # (not made yet)
            continue
        if (info.st_dev, info.st_ino) in identities:
            return False
    return True


def module_sources(*modules: str) -> Callable[[], bytes]:
    """The source of each of `modules` (dotted names), read when a cache's folder is first asked for (not at
    import): what a cache's values depend on when their words or checks are made in those modules, so that an
    edit of any of them (a message reworded, a check added) leaves no value made by the old one in use."""
    def sources() -> bytes:
        import importlib.util

        found = [importlib.util.find_spec(module) for module in modules]
        return b"\0".join(Path(str(spec.origin if spec else module)).read_bytes() for spec, module in zip(found, modules))
    return sources


def private_folder(name: str, *depends_on: str | bytes | Callable[[], str | bytes]) -> Path | None:
    """The folder of cache `name` whose values depend on `depends_on` (texts or bytes, or functions giving
    them: asked only here) and on this Python; None when caching is off or the folder could be written by
    others."""
    base = _base()
    if base is None:
        return None
    parts = [sys.version.encode()]
    for part in depends_on:
        part = part() if callable(part) else part
        parts.append(part if isinstance(part, bytes) else str(part).encode())
    digest = hashlib.sha256(b"\0".join(parts)).hexdigest()[:16]
    folder = base / f"{name}-{digest}"
    try:
        if not _in_bounds(folder.resolve()):  # before it is made there
            return None
        _make_private(folder)
        real = folder.resolve(strict=True)  # entries are opened by this path, whose every folder was checked
        info = real.stat()
        if info.st_uid != os.getuid() or info.st_mode & 0o022:  # someone else could plant code here
            return None
        if not all(_kept_by_user(parent) for parent in real.parents) or not _in_bounds(real):
            return None
        if info.st_mtime < time.time() - STALE_FOLDER_SECONDS / 30:  # in use: not another version's, left (_prune)
            os.utime(real)
    except (OSError, RuntimeError):  # RuntimeError: a loop of links
        return None
    return real


def _make_private(folder: Path) -> None:
    """Make `folder`, and each folder above it that is missing, the user's alone (0o700). mkdir's parents=True
    gives its mode to the last folder only, the others the umask's: under Ubuntu's umask 002 the ~/.cache/pnp
    pnp made was group-writable, so refused (_kept_by_user) by the very pnp that made it, and no cache was ever
    used (every build drew everything again, and `pnp changes` asked for a cache it could write)."""
    for above in [*reversed(folder.parents), folder]:
        if not above.is_dir():
            above.mkdir(mode=0o700, exist_ok=True)


def _kept_by_user(folder: Path) -> bool:
    """Whether no other user can rename what `folder` holds: it is the user's or root's, and no one else may
    write into it, unless it is sticky (/tmp), where no one else can rename or remove what the user keeps
    there. Checking the cache folder alone was not enough: in a folder others could write to
    (PNP_CACHE_DIR=/srv/shared/pnp, mode 777), another user renamed the checked folder away after the check
    and put a link to a folder of theirs in its place, whose entries were loaded as code."""
    info = folder.stat()
    return info.st_uid in (os.getuid(), 0) and (not info.st_mode & 0o022 or bool(info.st_mode & stat.S_ISVTX))


# the entries one cache folder keeps: past it, the least lately written are removed (made again if asked for),
# once by each process that stores one. Nothing removed entries: every manifest pnp seals (kit.manifest, one an
# output folder, every test's and CI run's) left one for ever, as every template and icon ever changed did
MAX_ENTRIES = 5_000
STALE_TEMPORARY_SECONDS = 3600  # a value is written in a moment: a temporary this old is a killed writer's
# a folder of the same cache for other versions (of pnp, its libraries or Python: private_folder's digest) that
# no process has used this long is removed: each upgrade left the last version's folders for ever, thousands
# of entries each (private_folder marks the folder it finds as used at most once a day)
STALE_FOLDER_SECONDS = 30 * 86400
_ENTRY_NAME = re.compile(r"[0-9a-f]{64}\.marshal")


def _prune(folder: Path, kept: int) -> None:
    """Remove the entries of `folder` written least lately until it holds at most `kept`, and the temporary
    files of entries a pnp killed while writing them left (no lock guards a cache folder: only those untouched
    for STALE_TEMPORARY_SECONDS, never one a writer is at); an entry another process removes or replaces
    meanwhile is left to it."""
    entries, stale = [], []
    too_old = time.time_ns() - STALE_TEMPORARY_SECONDS * 10**9
    try:
        with os.scandir(folder) as listing:
            for entry in listing:
                written = entry.stat(follow_symlinks=False).st_mtime_ns
                if entry.name.endswith(".marshal"):
                    entries.append((written, entry.name, entry.path))
                elif TEMPORARY_NAME.fullmatch(entry.name) and written < too_old:
                    stale.append(entry.path)
    except OSError:
        return
    for path in [*stale, *(path for _, _, path in sorted(entries)[:max(0, len(entries) - kept)])]:
        try:
            os.unlink(path)
        except OSError:
            pass
    _remove_unused_versions(folder)


def _remove_unused_versions(folder: Path) -> None:
    """Remove the folders beside `folder` of the same cache for other versions (named `<name>-<digest>`, the
    user's) untouched for STALE_FOLDER_SECONDS: the entries and temporaries pnp wrote in them, then the folder
    when that empties it (anything else put there is left, and so is the folder). Each is opened once, not
    following a link, and emptied through that handle: nothing outside it is removed."""
    name = folder.name.rpartition("-")[0]
    too_old = time.time() - STALE_FOLDER_SECONDS
    try:
        base = os.open(folder.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return
    try:
        with os.scandir(base) as listing:
            unused = [entry.name for entry in listing if entry.name != folder.name and
                      re.fullmatch(re.escape(name) + r"-[0-9a-f]{16}", entry.name) and _unused(entry, too_old)]
        for sibling in unused:
            _empty_and_remove(base, sibling)
    except OSError:
        pass
    finally:
        os.close(base)


def _unused(entry: os.DirEntry[str], too_old: float) -> bool:
    """Whether `entry` is a folder (not a link to one) of the user's, untouched since `too_old`."""
    info = entry.stat(follow_symlinks=False)
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and info.st_mtime < too_old


def _empty_and_remove(base: int, sibling: str) -> None:
    """Remove the entries and temporaries of the cache folder `sibling` of the folder open as `base`, then it."""
    try:
        opened = os.open(sibling, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=base)
    except OSError:
        return
    try:
        with os.scandir(opened) as listing:
            written = [entry.name for entry in listing
                       if _ENTRY_NAME.fullmatch(entry.name) or TEMPORARY_NAME.fullmatch(entry.name)]
        for entry_name in written:
            os.unlink(entry_name, dir_fd=opened)
        os.rmdir(sibling, dir_fd=base)
    except OSError:  # another process at it, or something else kept there: left
        pass
    finally:
        os.close(opened)


class DiskCache:
    """One cache: `value(key, make, valid)` is the value stored for `key` (text or bytes), or `make()`'s, stored."""

    def __init__(self, name: str, *depends_on: str | bytes | Callable[[], str | bytes],
                 max_entries: int = MAX_ENTRIES) -> None:
        self.name, self._depends_on, self.max_entries = name, depends_on, max_entries
        self._folder: Path | None | Literal[False] = False  # not looked for yet
        self._pruned = False  # whether this process has pruned its folder (prune)

    def folder(self) -> Path | None:
        if self._folder is False:
            self._folder = private_folder(self.name, *self._depends_on)
        return self._folder

    def value(self, key: str | bytes, make: Callable[[], Any], valid: Callable[[Any], bool]) -> Any:
        """The value kept for `key`, when `valid(value)` says it is of the shape `make` gives (a stored value of
        another type, its checksum right, would reach code that expects a template's code or an icon's
        drawing and fail there, or worse); else `make()`'s, kept."""
        found = self.stored(key, valid, _ABSENT)
        if found is not _ABSENT:  # (a value kept may be None: an icon found readable)
            return found
        made = make()
        self.store(key, made)
        return made

    def stored(self, key: str | bytes, valid: Callable[[Any], bool], absent: Any = None) -> Any:
        """The value kept for `key` when there is one and `valid(value)`; `absent` otherwise (none, damaged, of
        another shape, or caching off)."""
        path = self._path(key)
        if path is None:
            return absent
        try:
            found = marshal.loads(_verified(_entry(path), bytes.fromhex(path.stem)))
            if valid(found):
                return found
        except (OSError, ValueError, EOFError, TypeError):  # absent, unreadable or damaged: made again
            pass
        return absent

    def store(self, key: str | bytes, value: Any) -> None:
        """Keep `value` for `key` (nothing when caching is off or it cannot be written: the next run makes it
        again)."""
        path = self._path(key)
        if path is None:
            return
        try:
            payload = marshal.dumps(value)
            if len(payload) >= MAX_ENTRY_BYTES:  # it could not be read back
                return
            write_file(path, _checksum(bytes.fromhex(path.stem), payload) + payload, durable=False)  # (checksummed)
        except (OSError, ValueError):  # ValueError: a value marshal cannot write is simply not kept
            return
        if not self._pruned:
            self._pruned = True
            _prune(path.parent, self.max_entries)

    def _path(self, key: str | bytes) -> Path | None:
        """The entry's file for `key` (named by its digest); None when caching is off."""
        folder = self.folder()
        if folder is None:
            return None
        key = key if isinstance(key, bytes) else key.encode("utf-8", "surrogateescape")  # (--only typed not UTF-8)
        return folder / (hashlib.sha256(key).hexdigest() + ".marshal")


_ABSENT = object()  # DiskCache.stored's answer for no value kept
_CHECKSUM_BYTES = 16
MAX_ENTRY_BYTES = 64 << 20  # a compiled template or an icon's drawing is kilobytes


def _entry(path: Path) -> bytes:
    """A cache entry's bytes: an ordinary file (not a link, a pipe or a device) of at most MAX_ENTRY_BYTES;
    OSError or ValueError otherwise, as for a damaged one (an entry replaced by a pipe hung every run, by a
    link to /dev/zero or a 3 GB file read it without end)."""
    with open_file(path) as f:
        data = f.read(MAX_ENTRY_BYTES + 1)
    if len(data) > MAX_ENTRY_BYTES:
        raise ValueError("cache entry too large")
    return data


def _checksum(named: bytes, payload: bytes) -> bytes:
    """The checksum of an entry's payload and of the digest of its input (what names its file)."""
    return hashlib.blake2b(named + payload, digest_size=_CHECKSUM_BYTES).digest()


def _verified(entry: bytes, named: bytes) -> bytes:
    """The payload of a cache entry whose checksum (its first bytes) matches it and the input `named` (the
    digest naming its file); ValueError otherwise: a flipped bit on disk would else change every later PDF, or
    run as damaged code, and an entry moved to another's name (each whole) gave a template another's code and
    a card another's icon."""
    checksum, payload = entry[:_CHECKSUM_BYTES], entry[_CHECKSUM_BYTES:]
    if len(checksum) != _CHECKSUM_BYTES or _checksum(named, payload) != checksum:
        raise ValueError("damaged cache entry")
    return payload
