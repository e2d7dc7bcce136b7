"""The manifest pnp writes beside what it made (a kit's manifest.json, an export's export.json): one typed
record, written and read back here only. Reading is defensive: a file that is not as pnp writes it is a
UsageError naming it, never a KeyError somewhere later."""

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..cache import DiskCache
from ..errors import UsageError
from ..report import Diagnostic, Mark, Report
from .inputs import MANIFEST_MAX_BYTES, engine, listed_file, read_manifest, sha256, snapshot

if TYPE_CHECKING:
    from ..project import Project
    from ..units import PrintOptions


def record_bytes(record: dict[str, Any]) -> bytes:
    """A record pnp writes beside a kit (a selection's, a reprint's) as JSON text, UTF-8: a text typed on the
    command line that is not UTF-8 (--changed-since a file named with the byte 0xff, read by the system as a
    lone surrogate) is written as its JSON escape (\\udcff), where encoding it failed after the kit was built."""
    return (json.dumps(record, indent=2, ensure_ascii=False) + "\n").encode("utf-8", "backslashreplace")


@dataclass
class Manifest:
    """What a build or an export wrote and what it was made from. JSON keys in this order: `head`'s, then
    components (a kit's), files, warnings, inputs, face_fields (a kit's)."""

    head: dict  # the game, its title or the format, the settings it was made with, in the order written
    files: list[dict] = field(default_factory=list)  # {"path", "sha256", "bytes"[, "pages"]}: every file made, by name
    warnings: list[dict] = field(default_factory=list)  # {"message", "file", "line", "col"}: said again when up to date
    inputs: dict = field(default_factory=dict)  # {"engine", "files"}: what it was made from (inputs.record)
    components: list[dict] | None = None  # a kit's components: id, name, kind, count, size, pages, faces
    face_fields: list | None = None  # a kit's: what each of a component's face rows holds (faces.FACE_FIELDS)

    def as_dict(self) -> dict:
        """The JSON object, keys in the order pnp writes them."""
        data = dict(self.head)
        if self.components is not None:
            data["components"] = self.components
        data.update(files=self.files, warnings=self.warnings, inputs=self.inputs)
        if self.face_fields is not None:
            data["face_fields"] = self.face_fields
        return data

    def write(self, stream: TextIO) -> None:
        """The manifest as pnp writes it (indented UTF-8 JSON and a newline), streamed: a deck of 10,000 faces
        is never one string."""
        json.dump(self.as_dict(), stream, indent=2, ensure_ascii=False)
        stream.write("\n")

    @classmethod
    def read(cls, path: Path, shown: str, follow: bool = False) -> "Manifest":
        """The manifest at `path` (named `shown` in messages; a link only if `follow`), its parts checked to be
        as pnp writes them; UsageError naming the file otherwise."""
        return cls.of(read_manifest(path, shown, follow), shown)

    @classmethod
    def of(cls, data: dict, shown: str) -> "Manifest":
        """The manifest read as `data` (read_manifest) from the file named `shown`, its parts checked as read
        checks them."""

        def part(key: str, kind: type, default: Any) -> Any:
            value = data.get(key, default)
            if value is not default and not isinstance(value, kind):
                raise UsageError(f"not a pnp manifest: its {key} are not as pnp writes them", Mark(shown))
            return value

        files, warnings = part("files", list, []), part("warnings", list, [])
        _check_files(files, shown)
        _check_warnings(warnings, shown)
        inputs = part("inputs", dict, {})
        if not isinstance(inputs.get("files", {}), dict) or \
                not all(isinstance(k, str) and isinstance(v, str) for k, v in inputs.get("files", {}).items()):
            raise UsageError("not a pnp manifest: its inputs are not as pnp writes them", Mark(shown))
        written = ("components", "files", "warnings", "inputs", "face_fields")
        return cls({k: v for k, v in data.items() if k not in written}, files, warnings, inputs,
                   part("components", list, None), data.get("face_fields"))

    def made_with(self, settings: dict) -> bool:
        """Whether it records each of `settings` (top-level keys) with the same value."""
        return all(self.head.get(key) == value for key, value in settings.items())

    def replayed(self) -> list[Diagnostic]:
        """The warnings it kept, as diagnostics again."""
        return [Diagnostic("warning", w["message"], Mark(w["file"], w["line"], w["col"]) if w["file"] else None)
                for w in self.warnings]

    def pages_of(self, name: str) -> int:
        """The page count it lists for the file `name` (0 when it lists none)."""
        return next((f.get("pages", 0) for f in self.files if f["path"] == name), 0)


# a listed file's size when its record gives none: pnp wrote "bytes" from a2bde7d6 on, and an older pnp's kit or
# export listed its files by sha256 alone
UNRECORDED = -1


def recorded_size(entry: dict) -> int:
    """The size a record lists a file at (`entry`: one of its files), UNRECORDED when it lists none."""
    return entry.get("bytes", UNRECORDED)


def of_size(actual: int, recorded: int) -> bool:
    """Whether a file of `actual` bytes may be the one its record lists at `recorded` (recorded_size), to be read
    and its sha256 compared: of that size, or any when the record gives none. Taken as of another size, every
    file of an older pnp's export was 'changed since', and a newer pnp refused to export over it at all (an export
    replaces its folder whole) until the user moved their own export away."""
    return recorded in (actual, UNRECORDED)


def _check_files(files: list, shown: str) -> None:
    """UsageError at the manifest `shown` unless its files are listed as pnp writes them."""
    if not all(isinstance(f, dict) and isinstance(f.get("path"), str) and isinstance(f.get("sha256"), str)
               and type(f.get("pages", 0)) is int and type(f.get("bytes", 0)) is int for f in files):
        raise UsageError("not a pnp manifest: its files are not as pnp writes them", Mark(shown))
    # pnp lists each file once, and each listed is checked on disk: one listed 140,000 times took 4 s to check
    if len({f["path"] for f in files}) != len(files):
        raise UsageError("not a pnp manifest: its files are not as pnp writes them (one is listed twice)", Mark(shown))


def _check_warnings(warnings: list, shown: str) -> None:
    """UsageError at the manifest `shown` unless its warnings are kept as pnp keeps them."""
    if len(warnings) > MAX_KEPT_WARNINGS + 1:  # (and the line saying how many more)
        raise UsageError(f"not a pnp manifest: it keeps {len(warnings):,} warnings, and pnp keeps at most "
                         f"{MAX_KEPT_WARNINGS:,}", Mark(shown))
    if not all(_is_warning(w) for w in warnings):
        raise UsageError("not a pnp manifest: its warnings are not as pnp writes them", Mark(shown))


def _is_warning(record: object) -> bool:
    """A warning as warning_records writes it: text, and where (a file name, line and column: whole numbers,
    0 for none; a line of null sorted against a number was a traceback), all printable: a warning is said again
    on the terminal, where a control character would act (escape sequences, a line of its own)."""
    return (isinstance(record, dict) and isinstance(record.get("message"), str) and record["message"].isprintable()
            and isinstance(record.get("file"), str) and record["file"].isprintable()
            and all(type(record.get(k)) is int for k in ("line", "col")))


# the warnings a manifest keeps to say again when its output is up to date: the first of them, then a line saying
# how many more (every card of a 10,000-card deck warned of is kept); a manifest keeping more is not one pnp
# wrote, and is built again: 200,000 warnings planted in one took 18 s to say again, each a line of its text
MAX_KEPT_WARNINGS = 10_000


def warning_records(report: Report) -> list[dict]:
    """The report's warnings as a manifest keeps them, to say again when the output is up to date: at most
    MAX_KEPT_WARNINGS, then a line saying how many more were said when it was made."""
    warnings = report.warnings
    kept = [{"message": d.message, "file": (d.mark or Mark("")).file, "line": (d.mark or Mark("")).line,
             "col": (d.mark or Mark("")).col} for d in warnings[:MAX_KEPT_WARNINGS]]
    if len(warnings) > MAX_KEPT_WARNINGS:
        kept.append({"message": f"and {len(warnings) - MAX_KEPT_WARNINGS:,} more warnings, said again when it is "
                     "made again (--force)", "file": "", "line": 0, "col": 0})
    return kept


def up_to_date(project: "Project", game_id: str, options: "PrintOptions | dict", folder: Path, manifest_name: str) -> Manifest | None:
    """The manifest of the kit in `folder` if it was built from exactly the current inputs with these options
    and its files are untouched since; None when anything differs, or the manifest cannot be read or is not
    one pnp wrote (the build then replaces it). Only the files of `folder` the manifest lists are opened.
    `options` is the print options, or any dict of the settings the manifest records at its top level."""
    settings = options if isinstance(options, dict) else options.record()
    path = Path(folder) / manifest_name
    try:
        if not sealed(path):
            return None
        manifest = Manifest.read(path, project.rel(path))
        if not manifest.made_with(settings) or manifest.inputs.get("engine") != engine():
            return None
        recorded = manifest.inputs.get("files") or {}
        if snapshot(project, game_id, list(recorded)) != recorded:  # the used files are named by the record
            return None
        digested: dict[tuple[int, int], str] = {}  # (device, inode) -> sha256: a file listed many times is read once
        for entry in manifest.files:
            listed = listed_file(folder, entry["path"])
            info = listed.stat(follow_symlinks=False)
            if info.st_size != entry.get("bytes"):  # (not read: a kit file replaced by a 10 GB one took 49 s to hash)
                return None
            key = (info.st_dev, info.st_ino)
            if key not in digested:
                digested[key] = sha256(listed, follow=False)
            if digested[key] != entry["sha256"]:
                return None
    except (UsageError, OSError, ValueError, TypeError):
        return None
    return manifest


# The manifests this user's pnp wrote, each as it wrote it: {its real path: its sha256}, kept in the user's cache
# (see cache.py). Only such a manifest makes a kit or an export up to date: a game folder someone sent with its
# output/ made `pnp build` say "up to date" over PDFs that were not made from its data (a forged manifest listing
# another file's digest), and print them.
_WRITTEN = DiskCache("manifests")


def _real(path: Path) -> bytes:
    """The key of the manifest at `path` in the record: its real path. os.path.realpath, not Path.resolve: a
    manifest.json that is a link to itself made resolve raise RuntimeError ('This is a bug in pnp') on Python
    3.11; realpath leaves the loop unresolved and sha256(follow=False) then refuses the link."""
    return os.fsencode(os.path.realpath(path))


def seal(path: Path) -> None:
    """Record the manifest at `path`, just written by pnp, as this user's pnp's (sealed tells)."""
    try:
        _WRITTEN.store(_real(path), sha256(path, follow=False))
    except OSError:  # not kept: the next build makes it again
        pass


def seal_coming(path: Path, data: bytes) -> None:
    """Record the manifest `data`, about to be renamed to `path`, as this user's pnp's beside the one sealed there
    now (seal, once it is in place, keeps the new one alone): sealed only after the rename, a pnp killed between
    the two left a proof's manifest unsealed, so its proof was taken for a received one and kept for good by every
    later build of the kit (render._stale_proofs); sealed only before, the one still there lost its seal."""
    try:
        kept = _seals(_WRITTEN.stored(_real(path), _is_seal))
        _WRITTEN.store(_real(path), [*kept, hashlib.sha256(data).hexdigest()])
    except OSError:  # (not kept: as seal)
        pass


def _is_seal(value: object) -> bool:
    """Whether `value` is as seal or seal_coming stores it: a sha256, or a list of them."""
    return isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))


def _seals(value: str | list[str] | None) -> list[str]:
    return [] if value is None else [value] if isinstance(value, str) else value


def sealing() -> bool:
    """Whether this pnp can keep its record of the manifests it writes (seal): not with its cache off
    (PNP_CACHE_DIR=off), nor where the cache's folder cannot be made or is not the user's alone."""
    return _WRITTEN.folder() is not None


def sealed(path: Path) -> bool:
    """Whether the manifest at `path` is one this user's pnp wrote there (seal), unchanged since; OSError when it
    cannot be read. One larger than any manifest pnp writes is not read: a 10 GB file (sparse: a few KB in an
    archive) unpacked over a sealed export.json or manifest.json was read whole, for minutes, by every build,
    export and `pnp changes` that looked at it."""
    kept = _seals(_WRITTEN.stored(_real(path), _is_seal))
    return bool(kept) and sha256(path, follow=False, at_most=MANIFEST_MAX_BYTES) in kept
