"""`pnp convert`: one table's file written as YAML, CSV or XLSX, so a designer can edit cards in a spreadsheet
and keep YAML under version control (or the reverse). The table's fields in game.yaml say how to read each
cell, so a round trip gives back the same data."""

import contextlib
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..errors import DataError, LoadError, UsageError, cannot_write
from ..options import type_name
from ..project import Project, folder_held, name_key, named_alike, remove_killed_writes, write_file
from ..report import Mark, suggestions_bounded
from .load import MAX_FILE_BYTES, MarkedList, Record, load_file, plain, shown, values_allowance
from .schema import Field, Schema
from .spreadsheet import Warn, id_fields, read_table, sheet_title, write_csv, write_xlsx, write_yaml
from .workbook_parts import SPREADSHEETS, check_spreadsheet_format
from .tables import EMPTY_SHEET, default_file, table_sheet

def convert(project: Project, path: str | Path, fmt: str, out: str | Path | None = None,
            force: bool = False, warn: Warn | None = None) -> tuple[Path, int]:
    """Write the table held in `path` as `fmt` (next to it unless `out` is given). Returns (written path,
    number of items). Raises UsageError for a file that is no table, DataError/LoadError for unreadable data;
    `warn` is told what validate would warn of in the file read (read_table)."""
    # (a table validate refuses as more data than a game reads, convert refuses too: a CSV of 60,000 rows took 7 s
    # to be refused at its cap; and its suggestions are bounded as a game's load's, see suggestions_bounded)
    with values_allowance(), suggestions_bounded():
        return _converted(project, path, fmt, out, force, warn)


def _converted(project: Project, path: str | Path, fmt: str, out: str | Path | None, force: bool,
               warn: Warn | None) -> tuple[Path, int]:
    """convert(), within the game's allowance of values."""
    path = _without_dots(Path(path).absolute())
    game_folder, name = _game_folder_of(project, path)
    spec, enums, table, tables, meta = _table_of(project, game_folder, name)
    schema = Schema(spec.get("fields"), enums)
    sheet = _sheet_read(spec)
    if schema.problems:  # a field game.yaml cannot read is read as any value: text '0012' came back as 12
        message, mark = schema.problems[0]
        raise DataError(f"{message}; a table is converted only once game.yaml's fields for it read, since "
                        "they say how to read each cell", mark or Mark(project.rel(game_folder / "game.yaml")))
    shown = project.rel(path)
    real = project.inside(path, Mark(shown), "table file")
    ids = id_fields(tables, enums)  # (a ref's cell is read as the id it names, and read back so)
    if real.suffix.lower() in SPREADSHEETS:  # (read_table checks its format)
        items = read_table(real, shown, schema, sheet, ids, warn, project.root, spec.mark_of("sheet"))
    else:
        check_spreadsheet_format(real, shown, project.root)
        items = load_file(real, shown, project.root)
    if items is None:
        items = MarkedList(mark=Mark(shown, 1, 1))
    if not isinstance(items, MarkedList) or not all(isinstance(it, Record) for it in items):
        raise DataError(f"expected a list of {table} (one mapping per item)", getattr(items, "mark", None)
                        or Mark(shown, 1, 1))
    target = _target(project, path, fmt, out, force, (game_folder, table, name), meta)
    data = _written(items, fmt, schema, lambda: _sheet_named(spec, table), ids)
    try:
        with folder_held(target.parent):  # another convert writing the same file waits: its temporary is its own
            remove_killed_writes(target.parent, lambda name: name == target.name)  # (a convert killed before)
            write_file(target, data)
    except OSError as e:
        raise cannot_write(project.rel(target), e, project.rel) from None
    return target, len(items)


def _without_dots(path: Path) -> Path:
    """The absolute `path` with each '..' taken out where it leads where the system goes: back out of a real folder
    (`cards/mini/../mini/cards.yaml` was refused as in no game's folder). A '..' after a symbolic link leads out of
    where the link leads, not back where it is: that '..' is kept, and the path is refused as in no game's folder."""
    kept: list[str] = []
    for i, part in enumerate(path.parts):
        if part == ".." and len(kept) > 1 and not os.path.islink(Path(*kept)):  # (kept[0] is the root; never raises)
            kept.pop()
        else:
            kept.append(part)
            if part == "..":  # (past a link: the rest kept as given)
                return Path(*kept, *path.parts[i + 1:])
    return Path(*kept)


def _game_folder_of(project: Project, path: Path) -> tuple[Path, str]:
    """(the game folder holding the table file `path`, the file's name as a table's `file:` names it from there: a
    file in a folder of the game's, such as data/cards.csv, which validate reads, was refused as no table file);
    UsageError when it is in no game's folder."""
    parts = path.relative_to(project.cards.absolute()).parts if path.is_relative_to(project.cards.absolute()) else ()
    if len(parts) < 2 or ".." in parts:
        raise UsageError(f"a table file lives in cards/<game>/ of the project ({project.root})", Mark(project.rel(path)))
    return project.cards.absolute() / parts[0], Path(*parts[1:]).as_posix()


def _target(project: Project, path: Path, fmt: str, out: str | Path | None, force: bool,
            table: tuple[Path, str, str], meta: Record) -> Path:
    """The file the table read from `path` is written to as `fmt`: `out`, else `path` with its suffix; UsageError
    when that is `path` itself, a game's game.yaml, a file a game reads for another `table` than this one (see
    _read_by_another; `meta`: its game's game.yaml, read), or a file that exists (unless `force`)."""
    target = Path(out) if out else path.with_suffix("." + fmt)
    if _one_file(target, path):
        # (each refusal of the file to write said at it, `PATH: error: ...`, as every refusal at a file: it was
        # `Error: PATH exists; ...`)
        raise UsageError(f"is already {fmt}" if target.absolute() == path else
                         f"is {project.rel(path)} itself by another name (a link, or a name a disk that does not tell "
                         "names apart by case or Unicode form reads as it: macOS, Windows, a USB stick), and --force "
                         "does not write the table over the file it is read from: name another file",
                         Mark(project.rel(target.absolute())))
    if _game_file(project, target):  # (`--to yaml --out cards/<game>/game.yaml --force` wrote the table there)
        raise UsageError("defines a game (its tables among the rest), and --force does not replace it with a "
                         "table: name another file", Mark(project.rel(target)))
    # (`--out cards/<game>/other-table.yaml --force` wrote this table's items where the game reads another's)
    if (reader := _read_by_another(project, target, table, meta)) is not None:
        raise UsageError(f"is read by {reader}, and --force does not write other items over it: name another file",
                         Mark(project.rel(target)))
    if (alike := named_alike(target.parent, target.name)) is not None:
        # (`--out Cards.CSV` beside cards.csv wrote a second file on Linux, where a Mac or Windows refused it as
        # there, or with --force replaced cards.csv: the project, sent on, lost one of the two)
        raise UsageError(f"a disk that does not tell names apart by case or Unicode form (macOS, Windows, a USB "
                         f"stick) reads it as {shown(alike)}, which is there: name that file (--force replaces it), "
                         "or another", Mark(project.rel(target)))
    if target.exists() and not force:
        raise UsageError("exists; --force replaces it", Mark(project.rel(target)))
    return target


def _read_by_another(project: Project, target: Path, table: tuple[Path, str, str], own_meta: Record) -> str | None:
    """What reads `target` among the files the project's games read from their cards/ folders (each table's files,
    a table of no `file:` the one of its default names it would read, a rules file), other than the `table` (game
    folder, name, file converted) from the file converted, in any of the formats: its name, as said to the user;
    None when nothing else reads it. (Another of the `files:` of the table converted is another's items.)
    `own_meta` is the table's game's game.yaml, read once (_table_of): each convert read it twice."""
    own_folder, own_table, converted = table
    real = target.resolve()
    own_files = _listed_files(own_meta, own_table)
    for game_id in project.games():
        folder = project.cards / game_id
        game_yaml = folder / "game.yaml"
        try:
            meta = own_meta if folder.absolute() == own_folder else load_file(
                project.inside(game_yaml, Mark(project.rel(game_yaml)), "game file"), project.rel(game_yaml),
                project.root)
        except (LoadError, DataError):  # (a game that cannot be read: which files it reads cannot be told)
            meta = None
        # (an empty game.yaml, a list, `tables: [cards]`, `file: 3`: loaded but not read by validate, they were taken
        # for a game reading no file, and --force wrote over its table, exit 0)
        if (read := _files_read(folder, meta)) is None:
            _refuse_in_unread_game(project, target, real, folder, game_yaml)
            continue
        for reader, name in read:
            if reader == own_table and folder.absolute() == own_folder and _stem(name) == _stem(converted) \
                    and not (converted in own_files and Path(name).as_posix() in own_files):
                continue  # (the table's own file in another format; one its `files:` lists beside it holds others)
            with contextlib.suppress(OSError, RuntimeError, ValueError):  # (a name no file can have reads nothing)
                if _one_file(folder / name, real):
                    said = f"table '{reader}'" if reader is not None else "the rules:"
                    return f"{said} of {project.rel(game_yaml)}"
    return None


def _refuse_in_unread_game(project: Project, target: Path, real: Path, folder: Path, game_yaml: Path) -> None:
    """UsageError when the existing `target` (`real`, resolved) is in the cards/ folder of a game whose game.yaml
    does not load: which of its files the game reads cannot be told, and `--force --out cards/h/cards.yaml`, while
    h's game.yaml held a syntax error, wrote the items converted over h's own table, exit 0."""
    with contextlib.suppress(OSError, RuntimeError, ValueError):
        if target.is_file() and real.is_relative_to(folder.resolve()):
            raise UsageError(f"is in the folder of a game whose {project.rel(game_yaml)} does not load as validate "
                             "reads it, so which of its files a table reads cannot be told, and --force does not write over one: fix that "
                             "file first, or name another", Mark(project.rel(target)))


def _listed_files(meta: Record, table: str) -> list[str]:
    """The files the `table` of the game of `meta` lists in its `files:`, each read, each holding items of its
    own (cards.yaml and cards.csv listed together: converting cards.yaml with --force wrote its items over
    cards.csv's, exit 0, taken for the table's own file in another format); [] for a table of no `files:`."""
    tables = meta.get("tables")
    spec = tables.get(table) if isinstance(tables, Record) else None
    files = spec.get("files") if isinstance(spec, Record) else None
    # (as the file converted is named: ./cards.yaml is cards.yaml)
    return [Path(file).as_posix() for file in files if isinstance(file, str)] if isinstance(files, list) else []


def _files_read(folder: Path, meta: object) -> list[tuple[str | None, str]] | None:
    """(table name, or None for the rules, file name) of each file of cards/<game>/ the game of `meta` (its
    game.yaml, read) reads: a table of no `file:` reads the first of its default names found, and a file of a name
    before it would be read in its place (default_file). None when that cannot be told: `meta` not a mapping, or
    its tables, a table, a `file:` or `files:` not of the type validate reads (the designer is midway through an
    edit: the file they mean is not known)."""
    if not isinstance(meta, Record):
        return None
    read: list[tuple[str | None, str]] = []
    tables = meta.get("tables", {})
    if not isinstance(tables, Record):
        return None
    for name, spec in tables.items():
        if not isinstance(spec, Record) or not isinstance(name, str):
            return None
        files = spec.get("files") or [spec.get("file")]
        if files == [None]:  # (its defaults: <name>.yaml, else .csv, else .xlsx)
            defaults = [f"{name}{suffix}" for suffix in (".yaml",) + SPREADSHEETS]
            files = defaults[:defaults.index(default_file(folder, name)) + 1]
        if not isinstance(files, list) or not all(isinstance(file, str) for file in files):
            return None
        read += [(name, file) for file in files]
    rules = meta.get("rules")
    return read + ([(None, rules)] if isinstance(rules, str) else [])


def _one_file(path: Path, other: Path) -> bool:
    """Whether two paths name one file: by a link (a hard link too: the system is asked), or as a disk blind to
    case and Unicode form reads them (name_key). There, `--out cards/evo/GENES.yaml --force` wrote over the genes
    table's file, and `--to yaml --out Events.yaml --force` over the table converted, comments and all, where
    each was a file of its own on Linux."""
    if name_key(str(path.resolve())) == name_key(str(other.resolve())):
        return True
    try:
        return path.exists() and os.path.samefile(path, other)
    except (OSError, ValueError):  # (a name the system cannot look up is no file)
        return False


def _game_file(project: Project, target: Path) -> bool:
    """Whether `target` is (or links to) a game's game.yaml, in any case of its name."""
    real = target.resolve()
    return real.name.lower() == "game.yaml" and real.parent.parent == project.cards.resolve()


def _written(items: MarkedList, fmt: str, schema: Schema, sheet: Callable[[], str],
             ids: Mapping[Any, Field | None]) -> bytes:
    """The table's `items` as a file of `fmt` (`sheet`: the name of a workbook's sheet); DataError when pnp would
    not read it back for its size."""
    _texts_fit(items, fmt)
    data = {"csv": lambda: write_csv(items, schema, ids), "xlsx": lambda: write_xlsx(items, schema, sheet(), ids),
            "yaml": lambda: write_yaml(items, schema)}[fmt]()
    if len(data) > MAX_FILE_BYTES:  # (a table of long texts in a CSV is a longer YAML file: its quotes, its keys)
        raise DataError(f"as {fmt.upper()}, the table is {len(data) / 2**20:,.1f} MB, and pnp reads a file of at most "
                        f"{MAX_FILE_BYTES // 2**20} MB", items.mark)
    return data


def _characters(value: object) -> int:
    """The characters of the texts in `value` (not its keys: a sheet's header names a field once): fewer than
    the bytes of any file that holds it."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return sum(_characters(v) for v in value.values())
    if isinstance(value, list):
        return sum(_characters(v) for v in value)
    return 0


def _texts_fit(items: MarkedList, fmt: str) -> None:
    """DataError at the first item past which the table's texts alone are larger than pnp reads, before a cell
    is written or checked: an alias repeats one text on every item (950,000 characters on 5,000 cards), and
    each cell was checked, its whole length, and written (5 GB) before the file's size was refused (past 60 s)."""
    total = 0
    for index, item in enumerate(items):
        total += _characters(plain(item))
        if total > MAX_FILE_BYTES:
            raise DataError(f"as {fmt.upper()}, the table would be more than {MAX_FILE_BYTES // 2**20} MB (its texts "
                            f"alone, to this item), and pnp reads a file of at most {MAX_FILE_BYTES // 2**20} MB",
                            items.mark_of(index))


def _sheet_read(spec: Record) -> str | None:
    """The sheet the table's `sheet:` reads (table_sheet); DataError at `sheet:` when it names none, as validate
    refuses it (it was read as a sheet's name, and refused as the workbook's fault: "workbook has no sheet '2'; its
    sheets: 2")."""
    if "sheet" in spec and table_sheet(spec) is None:
        sheet = spec["sheet"]
        raise DataError(EMPTY_SHEET if sheet == "" else f"sheet: expected the name of a sheet (text), got {shown(sheet)}",
                        spec.mark_of("sheet"))
    return table_sheet(spec)


def _sheet_named(spec: Record, table: str) -> str:
    """The name of the sheet a table's workbook is written with: the one its `sheet:` reads (a workbook written with
    the table's name was refused by validate: 'workbook has no sheet'), else the table's."""
    sheet = table_sheet(spec)
    if sheet is None:
        return table
    if sheet_title(sheet) != sheet:  # (written under another name, the sheet was not found by validate: exit 0)
        raise DataError(f"sheet: {shown(sheet)} is no name a workbook's sheet may have (at most 31 characters, an "
                        "emoji counting two, none of [ ] : * ? / \\, not beginning or ending with ', not History), and the table reads that sheet: give it "
                        "such a name", spec.mark_of("sheet"))
    return sheet


def _table_of(project: Project, game_folder: Path, name: str) -> tuple[Record, Any, str, Record, Record]:
    """(table spec, enums, table name, every table, game.yaml's whole mapping) of the table game.yaml reads from
    the file `name`."""
    game_yaml = game_folder / "game.yaml"
    shown = project.rel(game_yaml)
    try:
        meta = load_file(project.inside(game_yaml, Mark(shown), "game file"), shown, project.root)
    except LoadError as e:
        raise DataError(e.message, e.mark) from None
    tables = meta.get("tables") if isinstance(meta, Record) else None
    enums = meta.get("enums") if isinstance(meta, Record) else None
    if not isinstance(tables, Record):
        raise UsageError("declares no tables", Mark(shown))
    for spec in tables.values():  # (files: 12 or true was a bug in pnp, 'int' object is not iterable; files: t.csv
        # was walked letter by letter): said as validate says it, at its line
        if isinstance(spec, Record) and "files" in spec and not isinstance(spec["files"], list):
            raise DataError(f"files: expected a list, got {type_name(spec['files'])}", spec.mark_of("files"))
    read = [(table, spec, spec.get("files") or [spec.get("file") or default_file(game_folder, table)])
            for table, spec in tables.items() if isinstance(spec, Record)]
    table, spec = _table_reading(read, name, shown)
    return spec, enums if isinstance(enums, Record) else {}, table, tables, meta


def _table_reading(read: list[tuple[Any, Record, Any]], name: str, shown: str) -> tuple[Any, Record]:
    """(name, spec) of the table that reads the file `name`, of the tables `read` (name, spec, files)."""
    stem = _stem(name)
    read = [(table, spec, [Path(f).as_posix() if isinstance(f, str) else f for f in files]) for table, spec, files in read]
    # the table reading the file itself, else the one reading the same file in another of the formats
    # (events.csv for events.yaml): t.csv of a table reading t.yaml was read by that table's fields, where
    # another table read t.csv ('007' of its text field converted as 7, exit 0)
    for same_file in (lambda f: name == f, lambda f: stem is not None and isinstance(f, str) and stem == _stem(f)):
        found = [(table, spec) for table, spec, files in read if any(map(same_file, files))]
        # (t.yaml and t.xlsx, converting t.csv; or one workbook's sheets, each a table's: two tables of the same
        # fields reading sheets A and B, the first's sheet was converted alone, exit 0, and B could not be)
        if len({(repr(plain(spec.get("fields"))), table_sheet(spec)) for _, spec in found}) > 1:
            raise UsageError(f"tables {', '.join(t for t, _ in found)} of {shown} read '{name}' (or the same file in "
                             "another format) by different fields or from different sheets, each reading its cells "
                             "otherwise; convert a file only one table reads (a workbook of one sheet per table: "
                             "save each sheet as a workbook of its own)")
        if found:
            return found[0]
    raise UsageError(f"no table of {shown} is read from '{name}'; its tables: {', '.join(str(t) for t, _, _ in read)}")


def _stem(name: str) -> str | None:
    path = Path(name)
    return path.with_suffix("").as_posix() if path.suffix.lower() in (".yaml", ".yml") + SPREADSHEETS else None

