"""Tables kept in spreadsheets: a .csv or .xlsx file is read into the same marked items a YAML file gives,
one row per item and one column per field, and any table can be written back out in any of the three
formats. Cells are read by their field's type (a text field keeps '007' as text, an int field reads '3' as
3), so YAML -> CSV/XLSX -> YAML gives back the same data. A list, map or record field holds its value as
YAML flow text in one cell, e.g. [a, b] or {plants: 2}. Every value is marked with its file, row and
column (and the sheet, for a workbook), so a message points at the cell."""

import collections
import contextlib
import contextvars
import csv
import dataclasses
import datetime
import decimal
import functools
import io
import itertools
import math
import operator
import os
import re
import warnings
import weakref
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

import yaml

from ..errors import DataError, LoadError, why_not_read
from ..options import closer_to_zero, closest, control_problem, too_close_to_zero, type_name
from ..project import open_project_file, read_project_file, utf8_text
from ..report import QUOTE_LIMIT, Mark, named, shortened
from ..template import printed_number
from .load import (MAX_EXPANDED_VALUES, MAX_FILE_BYTES, MAX_GAME_CELLS, MAX_GAME_SHEET_TEXT, MAX_NUMBER_DIGITS,
                   UNSEEN_LINE_BREAK, MarkedList, Place, Record, check_file, counted_load, number_too_long, plain,
                   resolver_input, shown, spend_cells, spend_sheet_text, spend_values, values_left)
from .reads import same
from .schema import Enum, Field, Icon, List, Map, Nested, Ref, Schema, Str, Timing, TrueFalse, WholeNumber
from .cell_colours import (column_number, fills_nothing, format_colour, run_colour, styled_tables, theme_colours,
                           unseen)
from .workbook_parts import (MAX_OBJECT_ELEMENTS, MAX_XML_PART_BYTES, check_number_formats, check_object_parts,
                             check_parts, check_sheet_count, check_spreadsheet_format, local_name)

MAX_COLUMNS = 1000
MAX_ROWS = MAX_EXPANDED_VALUES // 10
# Cells of a sheet's rows together, blank ones included (each is looked at): 40,000 rows of 1,000 blank cells
# (a CSV of commas, or a workbook row naming cell ALL3) took 30 s. Rows of 25 columns reach it at MAX_ROWS
MAX_CELLS = 1_000_000
MAX_SHEET_ROW = 1_048_576  # Excel's last row: openpyxl yields every row up to a <row r="999999999"> one by one
MAX_CELL_CHARS = 32_767  # Excel's limit; openpyxl cuts a longer text short without a word
# The characters of a sheet's text cells together, as read: a workbook's shared text is written once and read by
# every cell naming it, so a sheet of 61 KB whose 2,000 cells each read one text of 200,000 characters gave 400
# million characters to check (45 s). As much as a CSV or YAML file pnp reads may hold
MAX_SHEET_TEXT = MAX_FILE_BYTES
# A cell typed with one of these starts a formula in Excel (OWASP's CSV injection list, which names tab and
# carriage return too)
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NOT_PRINTABLE = yaml.reader.Reader.NON_PRINTABLE  # what a YAML table refuses, a spreadsheet's cell refuses too
# A number as a YAML table writes it: Python's int() and float() also read '4_0' as 40 and Arabic-Indic or
# full-width digits, which a reader of the sheet would not take for that number
_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


# -- reading -------------------------------------------------------------------------------------------------
Rows = list[tuple[int, list[Any]]]  # (line or row number, [cell value]) per row


Warn = Callable[[str, Mark], None]  # what a reading warns of, and where (a report's warning)


def read_table(path: Path, shown: str, schema: Schema, sheet: str | None = None,
               ids: Mapping[Any, Field | None] | None = None, warn: Warn | None = None,
               beneath: Path | None = None, sheet_mark: Mark | None = None) -> MarkedList:
    """The rows of a .csv or .xlsx file as a MarkedList of Records; raises LoadError (with the cell). `ids`:
    each table's id field (id_fields), by which a ref cell is read; `warn` is told of what is read, but a reader
    of the sheet may not see (_SheetRead.unseen_said). `beneath`: the project's folder, in which Project.inside
    found `path`: opened as it was checked (open_project_file). `sheet_mark`: where `sheet` is written (a name
    no sheet of the workbook has is refused there)."""
    check_file(path, shown, beneath)
    check_spreadsheet_format(path, shown, beneath)
    if path.suffix.lower() == ".csv":
        rows, where = _csv_rows(path, shown, beneath), shown
    else:
        rows, where = _xlsx_rows(path, shown, sheet, warn, beneath, sheet_mark)
    return _records(rows, where, schema, ids or {})


def id_fields(tables: Mapping[Any, Any], enums: Mapping[str, Any]) -> dict[Any, Field | None]:
    """Each table's `id` field (None where it has none), by which a ref cell naming one of its items is read."""
    return {name: Schema(spec.get("fields"), enums).fields.get("id") if isinstance(spec, Mapping) else None
            for name, spec in tables.items()}


_NAME = Str({}, {})  # how a cell naming an icon or a timing is read: as its text


def _read_as(field: Field | None, ids: Mapping[Any, Field | None]) -> Field | None:
    """The field whose reading a cell of `field` takes: a ref's cell is read as the id it names is (a text id
    such as '007' or '10' was read as the number 7 or 10, not an id, and converted to YAML as that number with
    exit 0), an icon's or a timing's as text, the name it is (an icon named 12 was unknown)."""
    named: set[Any] = set()
    while isinstance(field, Ref) and field.table not in named:  # (an id that is a ref to another table's ids)
        named.add(field.table)
        field = ids.get(field.table)
    if named and not isinstance(field, (Str, WholeNumber, TrueFalse, Enum)) or isinstance(field, (Icon, Timing)):
        return _NAME
    return field


def _csv_rows(path: Path, shown: str, beneath: Path | None = None) -> Rows:
    """(line, [cell text]) per row; the line is where the row starts (a quoted cell may span lines)."""
    text = _csv_file_text(path, shown, beneath)
    if said := _SEPARATOR_LINE.match(text):  # Excel's line naming the delimiter, before the header
        text, delimiter, before = text[said.end():], said[1], 1
        if not (delimiter == "\t" or delimiter.isprintable() and not delimiter.isalnum()):
            raise LoadError(f"'sep=' names U+{ord(delimiter):04X} as the delimiter, a character a cell's text holds "
                            "or one that prints nothing: name a punctuation mark, a space or a tab",
                            Mark(shown, 1, 5))
    elif text[:4].lower() == "sep=":
        raise _separator_line_problem(shown, _LINE_END.split(text[:_GUESSED_CHARS], 1)[0])
    else:
        delimiter, before = _delimiter(text), 0
    if (game_left := spend_sheet_text(len(text))) is not None and game_left < 0:  # (one file read by many tables)
        raise LoadError(f"the game's spreadsheets' text cells hold more than {MAX_GAME_SHEET_TEXT // 2**20} MB of text "
                        "together (each time one is read): keep long texts in YAML, each once", Mark(shown, 1, 1))
    text, beyond = _check_row_widths(text, delimiter, shown, before)
    rows = _split_rows(text, delimiter, shown, before)
    if beyond is not None:  # (after the rows before it, as a workbook's row past the limit is refused)
        raise LoadError(f"sheet has more than {MAX_ROWS:,} rows", Mark(shown, beyond, 1))
    return rows


def _split_rows(text: str, delimiter: str, shown: str, before: int) -> Rows:
    """(line, [cell text]) per row of the CSV `text` (_csv_rows'), split by csv.reader; LoadError at the cell it
    refuses. `before`: the lines of the file before the text."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    rows: Rows = []
    line, room = before + 1, _Room()
    try:
        for cells in reader:
            _check_row_size(len(rows), line, cells, shown, room)
            rows.append((line, [_csv_cell(cell) for cell in cells]))
            line = before + reader.line_num + 1
    except csv.Error as e:
        column, fault = _cell_at_fault(text, delimiter, line - before)
        if fault == "oversized":
            raise LoadError(f"cell holds more than {csv.field_size_limit():,} characters, the most a CSV cell "
                            "read holds (keep a text this long in a YAML table)", Mark(shown, line, column)) from None
        if fault == "unclosed":
            raise LoadError("malformed CSV: this cell opens a quote that no quote closes before the file ends: "
                            "close it, or double a quote meant as a character (\"\")", Mark(shown, line, column)) \
                from None
        if column:  # (text after a closing quote, said in the library's words: "',' expected after '\"'")
            raise LoadError(f"malformed CSV: this cell's text goes on after the quote that closes it: to hold a "
                            f"quote, quote the whole cell and double each quote in it (\"a \"\"b\"\" c\"), or "
                            f"put {named(delimiter)} after the closing quote", Mark(shown, line, column)) from None
        raise LoadError(f"malformed CSV: {e}", Mark(shown, before + reader.line_num or line, 1)) from None
    return rows


def _csv_file_text(path: Path, shown: str, beneath: Path | None = None) -> str:
    """The text of the CSV file `path`, without the byte-order mark Excel writes; LoadError at a file that is not
    UTF-8 text (a workbook named .csv is refused before: check_spreadsheet_format)."""
    try:
        raw = read_project_file(path, MAX_FILE_BYTES, Mark(shown), beneath=beneath)
    except OSError as e:
        raise LoadError(f"cannot read: {why_not_read(e)}", Mark(shown)) from None
    return utf8_text(raw, shown, "; save the sheet as CSV UTF-8", "utf-8-sig")




def _separator_line_problem(file: str, line: str) -> LoadError:
    """The refusal of a first line beginning 'sep=' that is not one naming the delimiter ('sep=; ' with a space,
    'sep=', 'sep=ab'): it was read as the header, a column named 'sep=' or 'sep=; ', and the file refused for
    another fault or read by a column of that name. At the first character past what the line may hold."""
    column = 5 if len(line) == 4 or line[4] == '"' else 6
    return LoadError(f"a first line beginning 'sep=' names the file's delimiter, and holds exactly one character "
                     f"after it, not a quote ('sep=;', as Excel writes it); this one holds {shown(line[4:])}: write "
                     "'sep=' and the delimiter alone, or begin the header another way (quote its first cell)",
                     Mark(file, 1, column))


def _cell_at_fault(text: str, delimiter: str, line: int) -> tuple[int, str | None]:
    """The column of the first cell csv.reader refuses in the row starting at the text's `line` (text after a
    quoted cell's closing quote, a quote never closed), or 0, and its fault where pnp says it: "oversized" where
    it holds more characters than the reader reads (its field_size_limit), "unclosed" where its opening quote is
    closed by none (said as the first of these where it was both: 'field larger than field limit', the library's
    words about the size of what was a stray quote). csv.reader's refusal named column 1."""
    pos = 0
    for _, ended in zip(range(line - 1), _LINE_END.finditer(text)):
        pos = ended.end()
    cell, most = _one_cell(delimiter), csv.field_size_limit()
    for column in range(1, MAX_COLUMNS + 1):
        if (found := cell.match(text, pos)) is None:
            return 0, None
        value = found[0]
        if not value and text.startswith('"', pos):  # (no quoted cell matches: no quote closes this one)
            return column, "unclosed"
        if (len(value) - 2 - value.count('""', 1, -1) if value.startswith('"') else len(value)) > most:
            return column, "oversized"
        if found.end() == len(text) or _LINE_END.match(text, found.end()):
            return 0, None
        if not text.startswith(delimiter, found.end()):
            return column, None
        pos = found.end() + 1
    return 0, None


# A first line "sep=;" names the file's delimiter, as Excel reads and writes it: it was read as the header (a
# column named "sep=", and the header's row refused as 'a value in a column without a name')
_SEPARATOR_LINE = re.compile(r'sep=([^"\r\n])(?:\r\n?|\n|\Z)', re.IGNORECASE)


def _cell_pattern(delimiter: str) -> str:
    """A CSV cell as csv.reader (strict) reads one: quoted (its quotes doubled inside, line breaks too), or not
    (no quote first, no delimiter nor line break)."""
    d = re.escape(delimiter)
    return rf'(?>"[^"]*+(?:""[^"]*+)*+"|[^"{d}\r\n][^{d}\r\n]*+|)'


@functools.cache
def _one_cell(delimiter: str) -> re.Pattern[str]:
    return re.compile(_cell_pattern(delimiter))


@functools.cache
def _row_of_cells(delimiter: str) -> re.Pattern[str]:
    """A CSV row's first MAX_COLUMNS cells at most (_cell_pattern)."""
    cell = _cell_pattern(delimiter)
    return re.compile(rf"{cell}(?:{re.escape(delimiter)}{cell}){{0,{MAX_COLUMNS - 1}}}+")


def _check_row_widths(text: str, delimiter: str, shown: str, before: int) -> tuple[str, int | None]:
    """The CSV text with the blank cells past MAX_COLUMNS of its rows left out, as a workbook's blank cells
    there are (a spreadsheet program writes a row's empty cells up to the end of the sheet's used range: a row
    of 1,500 cells, empty past the 1,000th, was refused where nothing is); LoadError at the first of its first
    MAX_ROWS rows holding a cell past MAX_COLUMNS that is not blank. The cells are counted before csv.reader
    splits the row: a line of 7 million cells was split whole (a list of them all, 700 MB, 4.5 s) before its
    length was checked. A row that csv.reader refuses (a stray quote) ends the count: it is refused there,
    before any later row is read. Past the first MAX_ROWS rows, a rest of blank rows is left out too, as a
    workbook's are (_SheetRead.read): a table of six rows followed by 150,000 empty lines, or lines of commas, was
    refused as a sheet of more than MAX_ROWS rows, at a row where nothing is. Where a row holding a value follows,
    the text is cut at the end of the first MAX_ROWS rows and the line of that row given beside it, for the
    refusal (it was refused at the line after the MAX_ROWS-th, a blank one, where a workbook names the value's own
    row). `before`: the lines of the file before the text."""
    pattern, blanks, pos, end = _row_of_cells(delimiter), _blank_cells(delimiter), 0, len(text)
    kept: list[str] = []  # the text up to `copied`, without the blank cells past MAX_COLUMNS
    copied = 0
    for row in range(MAX_ROWS + 1):
        if row == MAX_ROWS:
            if (held := _first_held(text[pos:], delimiter)) is None:
                end = pos
                break
            return "".join(kept) + text[copied:pos], before + 1 + _line_ends(text, pos + held)
        found = pattern.match(text, pos)
        if found is None or found.end() == end:
            break
        pos = found.end()
        if text[pos] == delimiter:
            blank = blanks.match(text, pos)  # (it matches no cell too: never None)
            if blank is None or blank.end() < end and not _LINE_END.match(text, blank.end()):
                line = before + 1 + _line_ends(text, found.start())
                raise LoadError(f"row has more than {MAX_COLUMNS:,} columns", Mark(shown, line, MAX_COLUMNS + max(1, _cells_begun(
                    text[pos:blank.end() if blank else pos], delimiter))))
            kept.append(text[copied:pos])
            pos = copied = blank.end()
        if (ended := _LINE_END.match(text, pos)) is None:
            break
        pos = ended.end()
    return ("".join(kept) + text[copied:end] if kept or end < len(text) else text), None


def _cells_begun(blanks: str, delimiter: str) -> int:
    """How many cells begin in `blanks`, a run of blank cells each after its delimiter (_blank_cells), so that the
    first holding a value past MAX_COLUMNS is named by its own column (the 1,001st was named, after 3,000 blank
    cells, where nothing is): its delimiters, those inside a quoted blank (a tab or a space) left out."""
    return re.sub(r'"[^"]*"', "", blanks).count(delimiter)


def _line_ends(text: str, end: int) -> int:
    """How many line ends (_LINE_END: \\r\\n, \\r or \\n) the CSV `text` holds before `end`, counted in C without a
    list of them: a value after 20 MB of blank lines was found at its line by a list of 20 million line ends
    (7 s; 830 MB where they were \\r\\n)."""
    return text.count("\n", 0, end) + text.count("\r", 0, end) - text.count("\r\n", 0, end)


@functools.cache
def _blank_cells(delimiter: str) -> re.Pattern[str]:
    """Cells that hold nothing (_blank), each after its delimiter: white space, or quoted white space, as
    _blank_text reads them (a space or "" was passed over where " " was a column past the limit)."""
    d = re.escape(delimiter)
    return re.compile(rf'(?:{d}(?>"\s*+"(?![^{d}\r\n])|[^\S\r\n]*+))*+')


def _first_held(rest: str, delimiter: str) -> int | None:
    """Where the first row holding something begins in the `rest` of a CSV text, from a row's start (the line of
    the character found); None where it is rows that hold nothing, as _blank reads a cell: delimiters, line ends,
    and cells of white space (any str.isspace() holds: a tab, a no-break space), unquoted or quoted whole
    (_blank_text). Found by one search run in C: a regular expression matching the rows cell by cell took 6 s over
    19 million commas before an 'x'."""
    blank = _blank_text(delimiter).match(rest)
    end = blank.end() if blank else 0  # (it matches no character too: never None)
    return _row_start(rest, end) if end < len(rest) else None


def _row_start(text: str, at: int) -> int:
    """Where the line of the CSV `text` holding the character at `at` begins (after the line end before it)."""
    return max(text.rfind("\n", 0, at), text.rfind("\r", 0, at)) + 1


@functools.cache
def _blank_text(delimiter: str) -> re.Pattern[str]:
    """CSV text of blank cells (_blank) as csv.reader (strict) reads them: stretches of delimiters, line ends and
    white space, each run in C at once, between cells quoted whole, each of white space alone (its line breaks too)
    and beginning a cell and ending one (a delimiter, a line end or the text's start or end beside its quotes). A
    quoted space past the limit was taken for a value where the rows before read it as blank; and a tab or a
    no-break space too, where only spaces were looked for."""
    d = re.escape(delimiter)
    return re.compile(rf'[\s{d}]*+(?:(?<![^{d}\r\n])"\s*+"(?![^{d}\r\n])[\s{d}]*+)*+')


_DELIMITERS = (",", ";", "\t")  # a European Excel saves CSV with semicolons
_QUOTED = re.compile(r'"[^"]*(?:"|$)')
_LINE_END = re.compile(r"\r\n?|\n")  # (as csv.reader ends a line)
_GUESSED_CHARS = 65_536  # (of a header of a thousand columns, each of 65 characters)


def _delimiter(text: str) -> str:
    """The delimiter of a CSV file's text: the one its first line holds most of outside quoted cells (a header
    cell "a;b;c" is one cell of a comma-separated file: counted, the file was read as separated by semicolons).
    The line ends where the reader ends it, at a carriage return too: a file of Excel's "CSV (Macintosh)", its
    lines ending in \r alone, was counted whole as its first line, and its cells' semicolons taken for its
    delimiter (refused as 'a value in a column without a name').
    Only the line's first _GUESSED_CHARS characters are looked at: a first line of 20 MB of quotes took 2 to 3 s.
    """
    first = _QUOTED.sub("", _LINE_END.split(text[:_GUESSED_CHARS], 1)[0])
    return max(_DELIMITERS, key=first.count)


def _xlsx_rows(path: Path, shown: str, sheet: str | None, warn: Warn | None = None,
               beneath: Path | None = None, sheet_mark: Mark | None = None) -> tuple[Rows, str]:
    """(row number, [cell value]) per row of one sheet (the first not hidden unless `sheet` names one), and the
    name messages use for it: file[sheet]. The file is opened once, as it was checked (open_project_file,
    `beneath`), and the zip reader and openpyxl are given it: each opened the path again, following links.
    Within reading_workbooks(), a workbook already checked and opened there (the same file, unchanged) is read
    again from that opening: checking and opening it is work in the size of the whole workbook, and a game of
    200 tables each reading its own sheet of one workbook took 8.5 s to validate, four times 100's."""
    shelf = _SHELF.get()
    file: BinaryIO | None = open_project_file(path, MAX_FILE_BYTES, Mark(shown), beneath=beneath)
    try:
        assert file is not None  # (as opened)
        if shelf is None:
            book, charts = _checked_book(file, shown)
            try:
                return _rows_of(book, charts, shown, sheet, warn, sheet_mark)
            finally:
                book.close()
        key = _file_key(file)
        if key not in shelf.books:
            shelf.books[key] = _checked_book(file, shown)  # (a refusal is not kept: said again by each table)
            shelf.keep(file, shelf.books[key][0])
            file = None  # (closed with the shelf)
        book, charts = shelf.books[key]
        return _rows_of(book, charts, shown, sheet, warn, sheet_mark)
    finally:
        if file is not None:
            file.close()


def _file_key(file: BinaryIO) -> tuple[int, ...]:
    """What tells an opened file from another, and from itself changed: its device, inode, size and time."""
    st = os.fstat(file.fileno())
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


@dataclasses.dataclass
class _Shelf:
    """The workbooks read_table opened within one reading_workbooks(), by _file_key, with what closes them."""

    books: dict[tuple[int, ...], tuple[Any, list[str]]] = dataclasses.field(default_factory=dict)
    opened: list[tuple[BinaryIO, Any]] = dataclasses.field(default_factory=list)

    def keep(self, file: BinaryIO, book: Any) -> None:
        self.opened.append((file, book))


_SHELF: contextvars.ContextVar["_Shelf | None"] = contextvars.ContextVar("pnp_workbooks", default=None)


@contextlib.contextmanager
def reading_workbooks() -> Iterator[None]:
    """Within it, each workbook read_table reads is checked and opened once, however many tables read it (their
    sheets, or one sheet again); each is closed at its end."""
    shelf = _Shelf()
    token = _SHELF.set(shelf)
    try:
        yield
    finally:
        _SHELF.reset(token)
        for file, book in shelf.opened:
            with contextlib.suppress(Exception):  # (closing what was read: nothing of it is lost)
                book.close()
            file.close()


def _checked_book(path: BinaryIO, shown: str) -> tuple[Any, list[str]]:
    """The workbook open as `path`, checked whole (its parts, sizes, sheet count and names), opened by openpyxl:
    (its book, the names of its chart sheets)."""
    try:
        with zipfile.ZipFile(path) as z:
            check_parts(z, shown)
            check_object_parts(z, shown)
            check_number_formats(z, shown)
            listed = check_sheet_count(z, shown)
        # not data_only: a formula cell is seen as one (and refused) instead of read as the value it last showed
        book, charts = _open_workbook(path, shown)
    except LoadError:
        raise
    except Exception as e:  # noqa: BLE001 - zip, XML and openpyxl errors alike: a file Excel did not write
        raise _unreadable(e, shown) from None
    try:
        if listed != len(book.sheetnames) + len(charts):  # (openpyxl drops them with a warning, or none)
            raise LoadError(f"workbook lists {listed:,} sheets, of which {len(book.sheetnames) + len(charts):,} can be "
                            "read (a sheet without its part, or a workbook saved as Strict Open XML): save it as "
                            "an Excel Workbook (.xlsx)", Mark(shown))
        _check_sheet_names(book.sheetnames + charts, shown)
    except BaseException:
        book.close()
        raise
    return book, charts


def _rows_of(book: Any, charts: list[str], shown: str, sheet: str | None, warn: Warn | None,
             sheet_mark: Mark | None = None) -> tuple[Rows, str]:
    """The rows of the sheet of `book` a table reads, and its name as messages give it."""
    try:
        ws = _sheet_read(book, charts, sheet, shown, sheet_mark or Mark(shown))
        # (a sheet's name, as its messages name it: Excel's are of 31 characters at most, and one of 5,000 was said
        # whole before each message of the sheet)
        where = f"{shown}[{shortened(ws.title, QUOTE_LIMIT)}]"
        rows = _sheet_rows(ws, where, warn)
    except LoadError:
        raise
    except Exception as e:  # noqa: BLE001 - a damaged sheet
        raise _unreadable(e, shown) from None
    return rows, where


def _sheet_read(book: Any, charts: list[str], sheet: str | None, shown: str, named_at: Mark) -> Any:
    """The sheet of cells of `book` a table reads: the first a spreadsheet program shows (a hidden sheet before it
    was read instead), or the one `sheet` names, as a spreadsheet program finds it: without case (_sheet_key;
    `sheet: cards` was refused as "workbook has no sheet 'cards'; its sheets: 'Cards'", where Excel's formulas
    and its Go To find 'Cards' by that name). The names of `book`'s sheets and `charts` are each one to Excel
    (_check_sheet_names): no name finds two. A name that finds no sheet of cells is refused at `named_at`, the
    table's `sheet:` (it was refused at the workbook, with no line: the name is what a user mistyped)."""
    if sheet is None and not book.worksheets:
        raise LoadError(f"workbook has no sheet of cells{_charts_said(charts)}", Mark(shown))
    if sheet is None:
        if (ws := next((ws for ws in book.worksheets if ws.sheet_state == "visible"), None)) is None:
            raise LoadError("every sheet of cells of the workbook is hidden, and pnp reads the first not hidden: "
                            "show the table's sheet, or name it with the table's `sheet:`", Mark(shown))
        return ws
    key = _sheet_key(sheet)
    if (title := next((name for name in book.sheetnames if _sheet_key(name) == key), None)) is not None:
        return book[title]
    if (chart := next((name for name in charts if _sheet_key(name) == key), None)) is not None:
        raise LoadError(f"sheet {named(chart)} of {named(shown)} is a chart sheet, which holds no cells; its sheets "
                        f"of cells: {_names_said(book.sheetnames)}", named_at)
    raise LoadError(f"workbook {named(shown)} has no sheet {named(sheet)}; its sheets: "
                    f"{_names_said(book.sheetnames)}", named_at)


# What Python's zip reader raises at a damaged zip package: BadZipFile (no directory at its end, a part's header
# or checksum wrong), zlib.error (a part's compressed bytes), EOFError (a part cut short)
_DAMAGED_ZIP = (zipfile.BadZipFile, zlib.error, EOFError)


def _unreadable(e: Exception, shown: str) -> LoadError:
    """The refusal of a workbook that cannot be read: a damaged zip package said in pnp's words (a file beginning
    as a zip package, then cut short or garbled, was refused as "BadZipFile: File is not a zip file", Python's
    words, where the file began as one), any other fault with the reader's own."""
    if isinstance(e, _DAMAGED_ZIP):
        return LoadError("not a readable .xlsx workbook: it begins as a zip package, as an .xlsx file does, but the "
                         "package is damaged or cut short (a copy or download that did not finish?): save it again "
                         "from the spreadsheet program", Mark(shown))
    return LoadError(f"not a readable .xlsx workbook ({type(e).__name__}: {e})", Mark(shown))


def _open_workbook(path: BinaryIO, shown: str) -> tuple[Any, list[str]]:
    """(openpyxl's read-only workbook of `path`, as its load_workbook opens one, the names of its chart sheets;
    imported here: CSV and YAML games load without it), its shared texts read as they are
    written: openpyxl drops every "x005F_" in one, so a text typed "_x0041_" in Excel (which writes it
    _x005F_x0041_) printed "A", and one typed "x005F_" lost it; _unescaped reads the escapes. A chart sheet is
    only named, never read: it holds no cells, and openpyxl reads its charts and opens its pictures with any
    format Pillow knows (a chart sheet without a drawing was refused as "AttributeError: 'list' object has no
    attribute 'find'", and `sheet:` naming one as another AttributeError). Its sheets are not walked for the
    size they say (openpyxl's read-only sheet parses its XML to the <dimension> the sheet may have, else to its
    end: 1.8 s for a sheet of 200,000 cells, every sheet of the workbook): pnp reads the rows a sheet holds."""
    from openpyxl.reader.excel import ExcelReader
    from openpyxl.worksheet._read_only import ReadOnlyWorksheet
    from openpyxl.xml.constants import SHARED_STRINGS

    charts: list[str] = []

    class Reader(ExcelReader):
        def read_strings(self) -> None:
            part = self.package.find(SHARED_STRINGS)
            if part is not None:
                with self.archive.open(part.PartName[1:]) as source:
                    # (openpyxl only counts and indexes its shared strings)
                    self.shared_strings = _shared_texts(source, shown)  # type: ignore[assignment]

        def read_worksheets(self) -> None:  # (openpyxl's, for a read-only workbook)
            for sheet, rel in self.parser.find_sheets():
                if rel.target not in self.valid_files:
                    continue
                if "chartsheet" in rel.Type:
                    charts.append(sheet.name)
                    continue
                ws: Any = UnsizedSheet(self.wb, sheet.name, rel.target, self.shared_strings)
                ws.sheet_state = sheet.state
                self.wb._sheets.append(ws)  # type: ignore[attr-defined]

    class UnsizedSheet(ReadOnlyWorksheet):
        def _get_size(self) -> None:
            pass

    reader = Reader(path, read_only=True, data_only=False)
    with warnings.catch_warnings():  # (printed with openpyxl's own file and line: what pnp must know is checked)
        warnings.simplefilter("ignore")
        _read_book(reader, shown)
    return reader.wb, charts


def _read_book(reader: Any, shown: str) -> None:
    """openpyxl's ExcelReader.read() for a read-only workbook, step by step, so that a refusal names the part it
    could not read: openpyxl's own wrapped a damaged part's ValueError in one naming the file by its absolute path,
    with its line breaks escaped ("Unable to read workbook: could not read stylesheet from /home/...\\nThis is
    most probably..."), and let others by naming no part (a style's fontId '²': "TypeError: expected <class
    'int'>")."""
    from openpyxl.styles.stylesheet import apply_stylesheet

    steps: tuple[tuple[str, Callable[[], object]], ...] = (
        ("list of parts", reader.read_manifest), ("shared texts", reader.read_strings),
        ("workbook part (its sheets, its views, its defined names)", reader.read_workbook),
        # (not its document or custom properties, nor its theme, which no cell's value reads: a created date of
        # year 0 refused the workbook)
        ("styles (fonts, fills, borders, cell styles...)", lambda: apply_stylesheet(reader.archive, reader.wb)),
        ("sheets", reader.read_worksheets), ("defined names", lambda: reader.parser.assign_names()))
    for part, step in steps:
        try:
            step()
        except LoadError:
            raise
        except Exception as e:  # noqa: BLE001 - openpyxl refusing a value of the part its own way
            raise LoadError(f"not a readable .xlsx workbook: openpyxl cannot read its {part} ({type(e).__name__}: "
                            f"{e}): the file is damaged; save it again from the spreadsheet program",
                            Mark(shown)) from None


def _check_sheet_names(names: list[str], file: str) -> None:
    """LoadError naming the first two sheets of the workbook whose names are one name as Excel compares them,
    without case ('Cards' and 'cards'): Excel renames one on opening such a file (its repair), and which of them
    pnp read, and which `sheet:` named, was a guess (the first, exit 0)."""
    seen: dict[str, str] = {}
    for name in names:
        if (first := seen.get(_sheet_key(name))) is None:
            seen[_sheet_key(name)] = name
        else:
            raise LoadError(f"workbook has two sheets named {shown(first)} and {shown(name)}, one name to a "
                            "spreadsheet program (which compares sheet names without case, and renames one when it "
                            "repairs the file): rename one", Mark(file))


def _sheet_key(name: str) -> str:
    """A sheet's name as a spreadsheet program compares it with another's: without case, a character for a
    character (Unicode's simple case mapping, as Excel's comparison maps one character to one), never full case
    folding, by which 'Straße' and 'STRASSE' were one name and a workbook Excel holds both in was refused."""
    return "".join(map(_one_case, name))


@functools.lru_cache(maxsize=4096)
def _one_case(char: str) -> str:
    """A character without its case, by the simple mappings (one character to one): a mapping to more than one
    character (ß to SS, İ to i̇) leaves it as it is."""
    lower = char.lower() if len(char.lower()) == 1 else char
    return lower.upper() if len(lower.upper()) == 1 else lower


def _charts_said(charts: list[str]) -> str:
    """What a workbook of no sheet of cells holds instead, for its refusal."""
    return f" (its chart sheets hold none: {_names_said(charts)})" if charts else ""


def _names_said(names: list[str]) -> str:
    """A workbook's sheet names as a message lists them, each quoted as every name is (report.named): unquoted,
    a name's trailing space could not be seen ('its sheets: cards ' for a sheet: cards not found)."""
    return ", ".join(named(name) for name in names) or "none"


def _shared_texts(source: Any, file: str) -> "_SharedTexts":
    """The texts of a workbook's shared-strings part (at most 4 MB: checked), parsed whole (_rich_text), each <si>
    of its <sst> in turn; LoadError at a <si> anywhere else (inside another, or of another namespace), which a
    cell's number does not count: each was counted, and every later cell read the text after its own (exit 0)."""
    from xml.etree.ElementTree import XMLParser

    parser = XMLParser()
    parser.feed(source.read(MAX_XML_PART_BYTES + 1))
    root = parser.close()
    texts = _SharedTexts([element for element in root if element.tag == _MAIN + "si"])
    if len(texts) < sum(count for tag, count in _tags(root).items() if local_name(tag) == "si"):
        raise LoadError("the workbook's shared texts hold a <si> element out of its place (each is one of its "
                        "<sst>'s own, in its namespace): the file is damaged", Mark(file))
    return texts


class _SharedTexts(Sequence[str]):
    """A workbook's shared texts, each read (_rich_text) when a cell first reads it: a part of 600,000 texts was
    read whole, each text in Python, for the few a sheet's cells read."""

    def __init__(self, elements: list[Any]) -> None:
        self.elements = elements
        self.read: dict[int, str] = {}
        self.blank: dict[int, bool] = {}  # whether the text of each number looked at holds nothing (holds_nothing)

    def __len__(self) -> int:
        return len(self.elements)

    def __getitem__(self, index: Any) -> Any:  # (an index, as openpyxl's reader reads a cell's; a slice unused)
        if index not in self.read:
            self.read[index] = _rich_text(self.elements[index])
        return self.read[index]

    def holds_nothing(self, index: int) -> bool:
        """Whether the text numbered `index` is blank as a cell reads it (_blank, its escapes read; a refused text
        is not), found once for every cell reading it: cells past a sheet's limits are not counted against its
        text (MAX_SHEET_TEXT), and 100,000 of them each reading a text of 4 MB of spaces would read 400 GB."""
        if index not in self.blank:
            text = self[index]
            self.blank[index] = not isinstance(text, _RefusedText) and _blank(_unescaped(text))
        return self.blank[index]


def _tags(root: Any) -> collections.Counter[str]:
    """How many elements of each tag `root` holds, itself included (counted in C)."""
    return collections.Counter(map(operator.attrgetter("tag"), root.iter()))


def _rich_text(text: Any) -> str:
    """The text of a text's element (a shared text's <si>, an inline text's <is>) as written: its own text, or its
    runs' texts joined (a rich text's formatting and phonetic guides left out, as openpyxl's reader does); a
    _RefusedText when it is refused where a cell reads it (_rich_text_problem). openpyxl read an inline text's
    run of two <t> as its last alone."""
    if len(text) == 1 and text[0].tag == _MAIN + "t" and not len(text[0]):  # (most: one plain text)
        return text[0].text or ""
    runs = [text, *(child for child in text if local_name(child.tag) == "r")]
    read = "".join(_run_text(run) for run in runs)
    problem = _rich_text_problem(text)
    if problem:
        return _RefusedText(read, problem)
    coloured = [(_run_text(run), _run_colour(run)) for run in runs[1:]]
    return _RunColouredText(read, coloured) if any(colour is not None for _, colour in coloured) else read


def _run_text(run: Any) -> str:
    """The text of a rich text's run (<r>)."""
    return "".join(t.text or "" for t in run if local_name(t.tag) == "t")


def _run_colour(run: Any) -> dict[str, str] | None:
    """The attributes of a rich text run's own colour (its <rPr>'s <color>), or None: it is the cell's font's."""
    for properties in run:
        if local_name(properties.tag) == "rPr":
            return next((dict(part.attrib) for part in properties if local_name(part.tag) == "color"), None)
    return None


class _RunColouredText(str):
    """A rich text of which a run has a colour of its own: `runs` holds each run's (text, its <color>'s attributes
    or None), by which _SheetRead tells whether the sheet shows it (_check_shown)."""

    runs: list[tuple[str, dict[str, str] | None]]

    def __new__(cls, text: str, runs: list[tuple[str, dict[str, str] | None]]) -> "_RunColouredText":
        coloured = super().__new__(cls, text)
        coloured.runs = runs
        return coloured


def _twice(text: Any) -> bool:
    """Whether a text's or a run's element holds two texts (<t>), or a text beside runs: a workbook writes one."""
    parts = [local_name(child.tag) for child in text]
    return parts.count("t") > 1 or "t" in parts and "r" in parts


class _RefusedText(str):
    """A shared text refused where a cell reads it: `problem` says why (_rich_text_problem)."""

    problem: str

    def __new__(cls, text: str, problem: str) -> "_RefusedText":
        refused = super().__new__(cls, text)
        refused.problem = problem
        return refused


def _rich_text_problem(text: Any) -> str | None:
    """Why a rich text's element (a shared text's <si>, an inline text's <is>) is refused where a cell reads it,
    or None: a run raised or lowered (superscript, subscript), which pnp prints on the line (a cell showing 10²
    printed 102), or a text holding an element, which openpyxl's reader reads up to that element (a title
    'Fight <x/>dinosaurs' printed 'Fight '), or a text or a run of two texts (_twice: openpyxl read the last),
    each with exit 0."""
    for element in text.iter():
        name = local_name(element.tag)
        if name in ("si", "is", "r") and _twice(element):
            return "this cell holds a part twice (its value, or its text): the file is damaged"
        if name == "vertAlign" and element.get("val") in ("superscript", "subscript"):
            return ("part of this text is raised or lowered (superscript or subscript), which pnp prints on the "
                    "line (10² as 102): type the character itself (²), or the text without it")
        if name == "t" and len(element):
            return (f"this text holds a <{local_name(element[0].tag)}> element inside it, and would be read up to it: "
                    "the file is damaged; save it again from the spreadsheet program")
    return None


_CELL_NAME = re.compile(r"([A-Z]{1,3})([0-9]{1,12})")


# Where a sheet's rows and cells are, and all openpyxl reads: each <row> of the sheet's namespace wherever it is,
# and every element in one as a cell (openpyxl.worksheet._reader.WorkSheetParser.parse, parse_row)
_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"  # openpyxl's SHEET_MAIN_NS
_CELL_PATH = tuple(_MAIN + tag for tag in ("worksheet", "sheetData", "row", "c"))


def _sheet_rows(ws: Any, where: str, warn: Warn | None = None) -> Rows:
    """(row number, [cell value]) of every row of the sheet holding a cell, read from its XML (at most 4 MB:
    checked) parsed whole and walked row by row, each cell read by openpyxl's read-only sheet reader (a parse
    event per element, handled in Python, made a sheet of 200,000 cells take 9 s of processor time). LoadError
    at the first row or cell that openpyxl's reader would leave out or put in the wrong place without a word
    (a value lost with exit 0): a sheet numbers its rows from 1 up, each past the one before (a row numbered 0
    or less, repeated or out of order was dropped), and a row's cells are named for that row, in column order,
    each once (B2 before A2 was lost, G2 before F2 too, a second B2 cut the row short); each cell is in a row
    of the sheet's <sheetData> (_misplaced); and at the first cell whose value is damaged (_cell_problem:
    openpyxl would read it as something else without a word) or that openpyxl's reader cannot read, or reads
    as an error value (_cell_value); XML it cannot parse is refused at the row it was in."""
    from openpyxl.worksheet._reader import WorkSheetParser

    book = ws.parent  # the reader openpyxl's own read-only sheet makes, reading each cell as that one does
    # (no source: only its parse_cell is used, on the elements read here)
    reader = WorkSheetParser(None, ws._shared_strings, data_only=False,  # type: ignore[arg-type]
                             epoch=book.epoch, date_formats=book._date_formats,
                             timedelta_formats=book._timedelta_formats)
    root = _sheet_tree(ws, where)
    sheet = _SheetRead(ws, reader, where)
    sheet.hidden_columns = _hidden_columns(root)
    sheet.rows_hidden = any(_hidden_by_default(part) for part in root.findall(_MAIN + "sheetFormatPr"))
    tags = _tags(root)
    sheet.condition_cells = {_first_cell(_condition_range(formatting)): 0
                             for formatting in _condition_formattings(root, tags)}
    if table_parts := [part for parts in root.findall(_MAIN + "tableParts") for part in parts]:
        sheet.tables = styled_tables(book._archive, ws._worksheet_path, table_parts)
    sheet.zeros_hidden = any(view.get("showZeros") in ("0", "false")
                             for view in root.findall(f"{_MAIN}sheetViews/{_MAIN}sheetView"))
    _check_sheet_root(root, ws, where)
    with warnings.catch_warnings():  # openpyxl's, once for all (15% of the time per cell): its cases are refused
        warnings.simplefilter("ignore")
        sheet.walk(root)
        if sheet.placed < _rows_and_cells(tags):  # one inside a cell: found by a walk looking into each
            _SheetRead(ws, reader, where, look_inside_cells=True).walk(root)
    for said in (sheet.unseen_said(), sheet.condition_said):
        if warn is not None and said:
            warn(*said)
    return sheet.rows


def _check_sheet_root(root: Any, ws: Any, where: str) -> None:
    """LoadError when the sheet's part is no sheet of cells (its XML no <worksheet>): a workbook whose sheet's
    relation named its styles part was read as a sheet of no rows, and the table as of no items (exit 0), where a
    spreadsheet program refuses the file."""
    if local_name(root.tag) in ("row", "c"):
        raise LoadError(_misplaced_said(root.tag), Mark(where, 1, 1))
    if root.tag != _MAIN + "worksheet":
        raise LoadError(f"the sheet's part {named(ws._worksheet_path)} holds a <{local_name(root.tag)}>"
                        f"{_namespace_said(root.tag)}, not the <worksheet> of a sheet of cells: the file is damaged; "
                        "save it again from the spreadsheet program", Mark(where, 1, 1))


def _blank_row(row: Any, shared: Any) -> bool:
    """Whether a sheet's <row> holds no value: each element in it is a cell holding nothing (_holds_nothing)."""
    return all(cell.tag == _CELL_PATH[3] and _holds_nothing(cell, shared) for cell in row)


def _holds_nothing(cell: Any, shared: Any) -> bool:
    """Whether a sheet's cell (<c>) holds nothing, as _blank reads a value in the rows pnp reads: no part, of a
    blank cell's type (a cell formatted, typed nothing in), or a text of white space alone, its own (inline, or a
    text typed as a formula's result) or one of the workbook's `shared` texts (_SharedTexts.holds_nothing), its
    escapes read (_unescaped). For the cells past a sheet's limits, passed over as the CSV reader passes over its
    blank cells (a text of a space past the 100,000th row or the 1,000th column was taken for a value, and the
    sheet refused as too long or too wide); a formula, or a text refused where a cell reads it, is not nothing."""
    kind = cell.get("t")
    if not len(cell):
        return kind in _BLANK_TYPES
    part = cell[0]
    if len(cell) > 1 or part.tag not in (_MAIN + "v", _MAIN + "is"):
        return False
    if kind == "inlineStr" and part.tag == _MAIN + "is":
        text = _rich_text(part)  # (each cell's own: read once, as the sheet's XML, at most 4 MB, is)
        return not isinstance(text, _RefusedText) and _blank(_unescaped(text))
    return part.tag == _MAIN + "v" and _value_holds_nothing(kind, part.text or "", shared)


def _value_holds_nothing(kind: str | None, value: str, shared: Any) -> bool:
    """Whether a cell of type `kind` whose <v> holds `value` holds nothing (_holds_nothing): a text of white space
    alone, or the number of one of the `shared` texts that is; or no value at all, <v/>, which the rows read read as
    a blank cell, in a type a blank cell has (an empty <v/> of a number past the 1,000th column was taken for a
    value, and the sheet refused as too wide)."""
    if not value:
        return kind in _BLANK_TYPES and kind != "inlineStr"  # (an inline text's <v> is refused where it is read)
    if kind == "str":
        return _blank(_unescaped(value))
    return (kind == "s" and isinstance(shared, _SharedTexts) and value.isascii() and value.isdigit()
            and _counted(value) < len(shared) and shared.holds_nothing(_counted(value)))


# The height of a row (in points) and the width of a column (in characters) under which a sheet at 100% shows it
# in no pixel: a row rounds to none under half a pixel at 96 dpi; a column of a width under 1/32 of a character is
# none wide with any default font whose digits are under 16 pixels wide (Calibri 11's are 7). A row of a height of
# 0.01 was read and printed where the sheet showed nothing, exit 0, as one of 0 is hidden. The sheet's defaults
# (its <sheetFormatPr>) are held to the same sizes: a default row height of 0.01 (or 0), set (_hidden_by_default),
# hid every row of no height of its own, read and printed, exit 0
_SHOWS_NOTHING = {"ht": 0.375, "width": 1 / 32, "defaultColWidth": 1 / 32, "defaultRowHeight": 0.375}


def _hidden(element: Any, size: str) -> bool:
    """Whether a sheet's row or column (`element`) is hidden: marked so (by hand, by a filter, by a collapsed
    outline), or of a height or width (`size`) that shows no pixel (_SHOWS_NOTHING): a spreadsheet program shows
    it as hidden."""
    if element.get("hidden") in ("1", "true"):
        return True
    try:
        return float(element.get(size) or "nan") < _SHOWS_NOTHING[size]
    except ValueError:
        return False


def _hidden_by_default(format_part: Any) -> bool:
    """Whether a sheet's <sheetFormatPr> hides its rows of no height of their own: by zeroHeight, or by a default
    height that shows no pixel (_SHOWS_NOTHING) marked as set (customHeight). Unmarked, the default height is
    Excel's own, from the Normal style's font, whatever defaultRowHeight says: ECMA-376 Part 1, 18.3.1.81 has
    customHeight "True if defaultRowHeight value has been manually set, or is different from the default value",
    and Excel shows rows of the font's height where a writer left it out (exceljs issues 634, 696, 1836: a default
    height written without it changed no row, until exceljs PR 855 wrote customHeight="1"). A sheet of
    defaultRowHeight="0" and no customHeight, which Excel shows whole, was refused as hidden (LibreOffice's reading)."""
    return (format_part.get("zeroHeight") in ("1", "true")
            or format_part.get("customHeight") in ("1", "true") and _hidden(format_part, "defaultRowHeight"))


def _hidden_columns(root: Any) -> bytearray:
    """Which of the first MAX_COLUMNS columns of a sheet (by number, from 1) are hidden: 1 each, from its <cols>,
    and every column of no width of its own when the sheet's default width is 0 (its <sheetFormatPr>
    defaultColWidth: a value in such a column was read, where the sheet showed no column, exit 0)."""
    hidden = bytearray(MAX_COLUMNS + 1)
    narrow = any(_hidden(part, "defaultColWidth") for part in root.findall(_MAIN + "sheetFormatPr"))
    if narrow:
        hidden[1:] = b"\x01" * MAX_COLUMNS
    for cols in root.findall(_MAIN + "cols"):
        for col in cols.findall(_MAIN + "col"):
            low, high = col.get("min") or "", col.get("max") or ""
            if _INT.fullmatch(low) and _INT.fullmatch(high):
                low_at, high_at = max(int(low), 1), min(int(high), MAX_COLUMNS)
                shut = _hidden(col, "width") or narrow and not col.get("width")
                if low_at <= high_at and (shut or narrow):  # (a column of a width of its own is shown)
                    hidden[low_at:high_at + 1] = (b"\x01" if shut else b"\x00") * (high_at - low_at + 1)
    return hidden


def _rows_and_cells(tags: collections.Counter[str]) -> int:
    """How many elements of a sheet are named as a row or a cell is, in any namespace, by its `tags` (_tags,
    counted in C: looking into every cell for one took an eighth of the time of a sheet's reading)."""
    return sum(count for tag, count in tags.items() if local_name(tag) in ("row", "c"))


def _sheet_tree(ws: Any, where: str) -> Any:
    """The root element of the sheet's XML part, parsed whole; LoadError at the row where it cannot be."""
    from xml.etree.ElementTree import ParseError, XMLParser

    with ws._get_source() as source:  # the sheet's XML part, as openpyxl's reader opens it
        data = source.read(MAX_XML_PART_BYTES + 1)
    _spend_game_work(len(data) // _XML_BYTES_PER_CELL, Mark(where, 1, 1))
    parser = XMLParser()
    try:
        parser.feed(data)
        return parser.close()
    except ParseError as e:
        row, column = _last_cell_begun(data)
        raise LoadError(f"the sheet's XML cannot be read ({str(e).split(':')[0]})", Mark(where, row, column)) from None


_ROW_DIGITS = re.compile(r"[0-9]{1,7}")  # a row's number, at most 1,048,576


def _last_cell_begun(data: bytes) -> tuple[int, int]:
    """(row, column) of the last cell a sheet's XML begins before the place where it cannot be parsed (at
    least 1, 1), for its refusal: the row as the sheet numbers it, the cell as its row's number or name does."""
    from xml.etree.ElementTree import ParseError, XMLPullParser

    parser: Any = XMLPullParser(events=("start",))
    row, column = 0, 0
    try:
        for at in range(0, len(data), 65536):
            parser.feed(data[at:at + 65536])
            for _, element in parser.read_events():
                if local_name(element.tag) == "row":
                    number = element.get("r")
                    # (read as a row's number when it may be one: int() refused 5,000 digits in Python's words, and
                    # a '²', which isdigit() takes for a digit; the sheet and row were not named)
                    row, column = int(number) if number and _ROW_DIGITS.fullmatch(number) else row + 1, 0
                elif local_name(element.tag) == "c":
                    found = _CELL_NAME.fullmatch(element.get("r") or "")
                    column = column_number(found[1]) if found else column + 1
    except ParseError:
        pass
    return max(row, 1), max(column, 1)


def _misplaced_said(tag: str) -> str:
    """The refusal of a row or a cell out of its place, or of an element of another kind in a row: each cell is
    in a row of the sheet's <sheetData>. A cell beside its row was left out by openpyxl's reader, and an
    element of another kind or namespace in a row read as a cell, unseen by the checks of _sheet_rows (a value
    lost or put in the wrong place, exit 0)."""
    return (f"a <{local_name(tag)}> element where a sheet holds none (its cells are each in a <row> of its <sheetData>): "
            "the file is damaged; save it again from the spreadsheet program")


_DATES_AND_TIMES = (datetime.date, datetime.time, datetime.timedelta)  # (a datetime is a date)


def _dated(value: object, code: str) -> str | None:
    """The refusal of a cell of number format `code` whose `value` openpyxl reads as a date, a time or a duration,
    or None. It was said as Python writes it ("2024-01-02 00:00:00" where the sheet showed 2-Jan; in a text field
    printed so, exit 0; a duration or a time of day was a traceback converting the table to YAML): refused as a
    YAML table's dates are, in any row, the header's too (a date there named a column by Python's text), naming
    the format that shows it."""
    if not isinstance(value, _DATES_AND_TIMES):
        return None
    kind = "a date cell" if _shown_as_it_is(code) else f"its number format is {shown(code)}"
    return (f"this cell holds a date or time ({kind}), which pnp's data has no type for: format the cell as text "
            "(or a number) and type the value")



def _rule_fill(fill: Any) -> Any:
    """The fill a conditional formatting's rule of fill `fill` shows a cell in, as a cell's own is read: a rule's
    solid fill holds its colour as bgColor (ECMA-376 Part 1, 18.8.20), a cell's as fgColor; None for a solid one of
    the automatic colour, one pnp cannot tell."""
    from openpyxl.styles import PatternFill

    if isinstance(fill, PatternFill) and fill.patternType in (None, "solid"):
        return None if fill.bgColor.type == "auto" else PatternFill("solid", fgColor=fill.bgColor)
    return fill

_THEMES: "weakref.WeakKeyDictionary[Any, tuple[str, ...]]" = weakref.WeakKeyDictionary()  # workbook -> its theme


class _SheetRead:
    """The rows of a sheet read so far (_sheet_rows), and where the reading is."""

    def __init__(self, ws: Any, reader: Any, where: str, look_inside_cells: bool = False) -> None:
        self.ws, self.reader, self.where = ws, reader, where
        self.look_inside_cells = look_inside_cells  # for a row or a cell inside one (_refuse_misplaced)
        self.placed = 0  # the rows and the cells read in their place
        self.parsed = 0  # the cells openpyxl read (_cell_value), each counted in the game's allowance (_spend_work)
        self.rows: Rows = []
        self.room = _Room()  # what the sheet may still hold
        self.row, self.column = 0, 0  # the number of the row read last, the column of its last cell read
        self.counted = 0  # the rows read, with a cell or none
        self.beside = 0  # the elements read beside the sheet's cells
        self.formats: dict[int, str] = {}  # a cell style's number format, by the style's number
        self.fills: dict[int, bool] = {}  # whether a cell style aligns its cells as Fill (_repeated)
        self.language_formats: dict[int, int] = {}  # the numFmtId of a style's format left to the language's
        self.hidden_columns = bytearray(MAX_COLUMNS + 1)  # 1 for each hidden column (_hidden_columns)
        self.row_hidden = False  # whether the row read last is hidden
        self.rows_hidden = False  # whether a row of no height of its own is hidden (_hidden_by_default)
        self.zeros_hidden = False  # whether a view of the sheet shows a cell holding the number 0 as blank
        self.unseen_styles: dict[tuple[int, str | None], tuple[str, str] | None] = {}  # where a cell style's text
        # colour (or its number format's, by its tag) hides, and its colours: in its fill, on the sheet (_unseen)
        self.first_unseen: dict[str, tuple[int, int, str]] = {}  # (row, column, colours) of the first value read
        # so, by where
        self.unseen_count: collections.Counter[str] = collections.Counter()  # the values read so, by where
        self.tables: list[tuple[int, int, int, int]] | None = []  # the ranges of the sheet's Excel tables whose
        # style may fill a cell of no fill (styled_tables: None for the whole sheet)
        self.row_tables: tuple[int, list[tuple[int, int]]] = (0, [])  # (a row, the columns of the tables in it)
        self.condition_cells: dict[tuple[int, int], int] = {}  # the style of each first cell of a range of
        # conditional formatting (its cells' fill, set before the cells are read to the default style's, 0)
        self.condition_said: tuple[str, Mark] | None = None  # the warning of a rule colouring text as its fill

    @functools.cached_property
    def theme(self) -> tuple[str, ...]:
        """The workbook's theme colours (theme_colours), read once needed, once per workbook: finding its theme
        part reads the workbook's relations, one per sheet, and a workbook of 800 sheets each read by a table
        spent 11 s of its validation there."""
        book = self.ws.parent
        if (found := _THEMES.get(book)) is None:
            found = _THEMES[book] = theme_colours(book._archive)
        return found

    def _refuse_misplaced(self, elements: Any, skipped: Any = None) -> None:
        """LoadError at the first of `elements` (but `skipped`) named as a row or a cell is (_misplaced_said), or
        as a range of merged cells (_merged)."""
        for element in elements:
            name = local_name(element.tag)
            if element is not skipped and name in ("row", "c"):
                raise LoadError(_misplaced_said(element.tag), Mark(self.where, max(self.row, 1), self.column + 1))
            if name == "mergeCell":
                raise _merged(element.get("ref") or "", self.where)

    def walk(self, root: Any) -> None:
        """Reads the sheet whose XML's root element is `root`."""
        for part in root:
            if root.tag == _CELL_PATH[0] and part.tag == _CELL_PATH[1]:
                for element in part:
                    self.read(element)
            else:
                self.beside_cells(part)

    def beside_cells(self, part: Any) -> None:
        """Reads a part of the sheet beside its cells: LoadError at a row or a cell in it, or at one element too
        many beside the cells (the sheet is named). openpyxl makes an object of each (a conditional format, a
        link, a column's width...), as of the parts check_object_parts counts: 50,000 rules of conditional
        formatting in a 4 MB sheet took 8 s."""
        for element in part.iter():
            self._refuse_misplaced((element,))
            if _is_condition_formatting(element):
                self._refuse_shown_otherwise_by_condition(element)
            self.beside += 1
            if self.beside > MAX_OBJECT_ELEMENTS:
                raise LoadError(f"the sheet holds more than {MAX_OBJECT_ELEMENTS:,} elements beside its cells "
                                f"(formats, links, column widths...); pnp reads at most {MAX_OBJECT_ELEMENTS:,} (a "
                                "sheet has a few dozen): the file is damaged", Mark(self.where))

    def _refuse_shown_otherwise_by_condition(self, formatting: Any) -> None:
        """LoadError at the first cell of a conditional formatting's range when one of its rules changes the text
        its cells show (_rule_shows_otherwise) by a condition, which pnp does not run: a rule of format ;;; over the
        names, or a data bar showing the bar alone, left the sheet blank where the cards printed the values (exit
        0)."""
        cells = _condition_range(formatting)
        at = _first_cell(cells)
        for rule in formatting:
            if local_name(rule.tag) != "cfRule":
                continue
            style = self._rule_style(rule, cells, at)
            if said := _rule_shows_otherwise(rule, style):
                raise LoadError(f"conditional formatting of cells {shown(cells)} {said} where the rule "
                                "applies, and pnp applies no such rule (nor runs its condition): what it reads from "
                                "them may not be what the sheet shows; remove the rule, or make it show the values",
                                Mark(self.where, *at))
            if self.condition_said is None and (colours := self._hides_by_condition(style, at)):
                self.condition_said = (
                    f"conditional formatting of cells {shown(cells)} colours their text as their fill is ({colours})"
                    " where its condition holds, so the sheet may show nothing there, and pnp runs "
                    "no rule's condition, and reads and prints the values: colour the rule's text to show them, or "
                    "delete them if they are not part of the table", Mark(self.where, *at))

    def _rule_style(self, rule: Any, cells: str, at: tuple[int, int]) -> Any:
        """The differential style (a font, a fill, a number format) a conditional formatting's `rule` (over
        `cells`, the first at `at`) sets: the one it names by its dxfId in the workbook's styles, or the one it holds
        (<x14:dxf>: Excel 2010 writes such a rule in the sheet's extLst, and its white text on a white fill went
        unwarned where an ordinary rule's was warned of); None where it names none there. LoadError at the range's
        first cell where the style it holds cannot be read."""
        own = next((part for part in rule if local_name(part.tag) == "dxf"), None)
        if own is None:
            formats = getattr(getattr(self.ws.parent, "_differential_styles", None), "dxf", None) or []
            number = rule.get("dxfId") or ""
            return formats[int(number)] if number.isdigit() and int(number) < len(formats) else None
        from openpyxl.styles.differential import DifferentialStyle

        try:
            return DifferentialStyle.from_tree(own)
        except Exception as e:  # noqa: BLE001 - openpyxl refusing a value of the style its own way
            raise LoadError(f"conditional formatting of cells {shown(cells)} holds a style that cannot be read "
                            f"({type(e).__name__}: {e}): the file is damaged; save it again from the spreadsheet "
                            "program", Mark(self.where, *at)) from None

    def _hides_by_condition(self, style: Any, at: tuple[int, int]) -> str | None:
        """The colours (cell_colours.unseen), or None, where a conditional formatting's rule of differential style
        `style` (_rule_style) shows its cells' text in a colour their fill hides: the font colour the rule sets, or else the one of
        the first cell of its range at `at`, against the fill the rule sets, or else that cell's (each cell's own is
        not looked up: a rule over cells of several fills is judged by its first). A rule setting neither changes
        nothing the cell's own reading did not judge (a rule filling white cells of white text on a dark fill
        went unwarned)."""
        from openpyxl.cell.read_only import ReadOnlyCell
        from openpyxl.styles import Color, PatternFill

        if style is None:
            return None
        font_set = style.font is not None and style.font.color is not None
        solid = isinstance(style.fill, PatternFill) and style.fill.patternType in (None, "solid")
        # (a rule's solid fill holds its colour as bgColor, ECMA-376 Part 1, 18.8.20; <patternFill/> holds none)
        fill_set = style.fill is not None and not (solid and style.fill.bgColor == Color())
        if not (font_set or fill_set):
            return None
        cell = ReadOnlyCell(self.ws, 1, 1, None, style_id=self.condition_cells.get(at, 0))
        if fill_set:
            fill = _rule_fill(style.fill)
            if fill is None:
                return None
        else:
            fill = cell.fill
            if fills_nothing(fill) and self._in_table(*at):
                return None  # (the table's style may fill it, as a cell's value is judged: _check_shown)
        return unseen(style.font if font_set else cell.font, fill, self.theme, self.ws.parent._colors)

    def read(self, element: Any) -> None:
        """Reads an element of the sheet's <sheetData>: a row, or an element of another kind holding none."""
        if element.tag != _CELL_PATH[2]:
            self._refuse_misplaced(element.iter())
            return
        self.row, self.column = _row_number(element.get("r"), self.row, self.where), 0
        self.row_hidden = _hidden(element, "ht") or self.rows_hidden and not element.get("ht")
        self.counted += 1
        self.placed += 1 + len(element)  # (each element in a row is a cell, or refused)
        self._spend_work(_ROW_WORK)
        if self.counted > MAX_ROWS and _blank_row(element, self.ws._shared_strings):
            return  # (nothing to read: rows formatted down the sheet, saved row by row, were refused as too many)
        if self.counted > MAX_ROWS:  # (a row of no cell too: 250,000 of <row/> took 7 s)
            raise LoadError(f"sheet has more than {MAX_ROWS:,} rows", Mark(self.where, self.row, 1))
        self.reader.row_counter, self.reader.col_counter = self.row, 0  # (as its parse_row sets them)
        parsed = self.parsed
        held = [read for cell in element if (read := self._cell(cell)) is not None]
        self._spend_work(_PARSED_CELL_WORK * (self.parsed - parsed))
        if held:  # (a row of no cell is one the file leaves out)
            self._add(held)

    def _cell(self, cell: Any) -> dict[str, Any] | None:
        """openpyxl's reading of an element of a row (parse_cell): LoadError unless it is a cell in its place,
        whose value openpyxl reads as it is (_cell_problem, _cell_value); None for a blank cell past MAX_COLUMNS,
        which holds nothing to read (a row formatted to its end, as a spreadsheet program saves a column styled
        far to the right, was refused as a row of too many columns, at a column where nothing is)."""
        if cell.tag != _CELL_PATH[3]:
            raise LoadError(_misplaced_said(cell.tag), Mark(self.where, self.row, self.column + 1))
        self.column = _cell_column(cell.get("r"), self.row, self.column, self.where)
        if self.column > MAX_COLUMNS and _holds_nothing(cell, self.ws._shared_strings):
            return None
        if self.column > MAX_COLUMNS:  # (refused as it is met: a row of 900,000 cells was read whole first, 360 MB)
            # (at the cell's own column: a value at XFD, past blank cells, was named at column 1,001, where nothing is)
            raise LoadError(f"row has more than {MAX_COLUMNS:,} columns", Mark(self.where, self.row, self.column))
        if self.look_inside_cells:
            self._refuse_misplaced(cell.iter(), skipped=cell)
        if not len(cell) and cell.get("t") in _BLANK_TYPES:  # a blank cell (most, in a sheet of many): no value
            if problem := _style_problem(cell.get("s"), self.ws):  # to read, as parse_cell reads none
                raise LoadError(problem, Mark(self.where, self.row, self.column))
            self.reader.col_counter = self.column  # (as parse_cell counts the cells it reads)
            return {"column": self.column, "value": None, "data_type": "n"}
        if problem := _cell_problem(cell, self.ws):
            raise LoadError(problem, Mark(self.where, self.row, self.column))
        if (formula := cell.find(_MAIN + "f")) is not None:
            # refused before openpyxl reads it: it parses a formula shared with later cells again for each (a row
            # of 16,000 cells sharing one of 72,000 characters ran past a minute)
            shared = not formula.text and formula.get("t") == "shared"
            said = "one shared from another cell" if shared else shown("=" + (formula.text or ""))
            raise LoadError(f"this cell holds a formula ({said}); pnp reads what a cell holds and runs no formula: "
                            "type the value, or make the cell text", Mark(self.where, self.row, self.column))
        self.parsed += 1
        return _cell_value(self.reader, cell, self.where, self.row, self.column)

    def _spend_work(self, units: int) -> None:
        """Counts the work of reading a row element, or the cells of one that openpyxl read, against the game's
        allowance of cells (beside the row's cells _check_row_size counts, as a CSV's are); LoadError at the row
        where it is spent."""
        _spend_game_work(units, Mark(self.where, self.row, 1))

    def _add(self, held: list[dict[str, Any]]) -> None:
        """Adds the values of the cells read of a row (openpyxl's parse_cell's, in column order) to the rows."""
        values: list[Any] = [None] * held[-1]["column"]
        for cell in held:
            value, column = cell["value"], cell["column"]
            if (self.row, column) in self.condition_cells:
                self.condition_cells[self.row, column] = cell["style_id"]
            if value is None:
                continue
            if isinstance(value, str):  # (counted before any is looked at: each check reads the whole text)
                self._spend_text(len(value), column)
            code = self._number_format(cell["style_id"], column, value)
            if problem := (_dated(value, code) or _past_excel_digits(value) or _shown_otherwise(value, code)
                           or self._zero_unshown(value) or self._repeated(cell["style_id"])):
                raise LoadError(problem, Mark(self.where, self.row, column))
            values[column - 1] = _unescaped(value) if isinstance(value, str) else _number_as_shown(value, code)
            if isinstance(value, str) and (problem := _longer_than_a_cell(values[column - 1])):
                raise LoadError(problem, Mark(self.where, self.row, column))
            if not _blank(values[column - 1]):
                self._check_shown(column, cell["style_id"], _format_colour_tag(code, value),
                                  value.runs if isinstance(value, _RunColouredText) else None)
        _check_row_size(len(self.rows), self.row, values, self.where, self.room)
        self.rows.append((self.row, values))

    def _check_shown(self, column: int, style: int, tag: str | None,
                     runs: list[tuple[str, dict[str, str] | None]] | None) -> None:
        """Checks a value read in `column` of the row read, of cell style `style` and number format colour `tag`
        (_format_colour_tag), and of these rich text `runs` (_RunColouredText) if any: LoadError where its row or
        column is hidden; counted where its colour, or a run's, hides in its fill (_unseen), which is warned of
        (unseen_said)."""
        hidden_in = self._unseen(style, tag) if runs is None else next(
            (said for text, colour in runs if not _blank(text) and (said := self._unseen(style, tag, colour))), None)
        if hidden_in and hidden_in[0] == "sheet" and self._in_table(self.row, column):
            hidden_in = None  # (the table's style may fill it, with a colour pnp does not read)
        if hidden_in:
            self.first_unseen.setdefault(hidden_in[0], (self.row, column, hidden_in[1]))
            self.unseen_count[hidden_in[0]] += 1
        if self.row_hidden or self.hidden_columns[column]:
            hidden = ("row is hidden (by hand, by a filter, by a height too small to show" if self.row_hidden
                      else "column is hidden (by hand, by a width too small to show, by the sheet's default "
                           "width of 0")
            raise LoadError(f"this cell's {hidden} or in a collapsed outline), and pnp reads every row and "
                            "column, shown or not: show it, or delete it if it is not part of the table",
                            Mark(self.where, self.row, column))

    def _in_table(self, row: int, column: int) -> bool:
        """Whether the cell at `row`, `column` is in a table of the sheet whose style may fill it."""
        if self.tables is None:
            return True
        if self.row_tables[0] != row:  # (the tables' columns found once a row)
            self.row_tables = (row, [(low, high) for top, low, bottom, high in self.tables if top <= row <= bottom])
        return any(low <= column <= high for low, high in self.row_tables[1])

    def _unseen(self, style: int, tag: str | None,
                run: Mapping[str, str] | None = None) -> tuple[str, str] | None:
        """Where the cell style numbered `style` shows a value in a colour that hides (cell_colours.unseen), and the
        colours: "fill" in its own fill, "sheet" on the sheet's background (it has no fill), else None; in its
        font's colour, or
        its number format's colour `tag` ([White]) where it has one, or a rich text's run's own colour (its
        <color>'s attributes, `run`)."""
        if run is None and (style, tag) in self.unseen_styles:
            return self.unseen_styles[style, tag]
        from openpyxl.cell.read_only import ReadOnlyCell

        cell, palette = ReadOnlyCell(self.ws, 1, 1, None, style_id=style), self.ws.parent._colors
        shown_in = run_colour(run, self.theme, palette) if run is not None else None
        if run is not None and shown_in is None:
            return None  # (a colour pnp cannot tell: taken to show)
        colours = unseen(cell.font, cell.fill, self.theme, palette,
                         shown_in or (format_colour(tag, palette) if tag else None))
        said = ("sheet" if fills_nothing(cell.fill) else "fill", colours) if colours else None
        if run is None:
            self.unseen_styles[style, tag] = said
        return said

    def unseen_said(self) -> tuple[str, Mark] | None:
        """The warning of the values read whose colour their fill hides (white on white), at the first, or None: a
        spreadsheet program shows nothing there, and pnp reads and prints them (a designer may colour a cell so on
        purpose: its value is still the cell's; it was printed with no word)."""
        said = [where for where in ("fill", "sheet") if where in self.first_unseen]
        if not said:
            return None
        (row, column, colours), count = min(self.first_unseen[where] for where in said), sum(
            self.unseen_count[w] for w in said)
        more = f" (and {count - 1:,} more cells of the sheet)" if count > 1 else ""
        return (f"this cell's value is coloured as its fill is ({colours}){more}, so the sheet "
                "shows nothing there, and pnp reads and prints it: colour the text to show it, or delete it if it "
                "is not part of the table", Mark(self.where, row, column))

    def _repeated(self, style: int) -> str | None:
        """The refusal of a cell (not blank) whose style aligns it as Fill, which repeats what it holds across the
        cell, or None: the sheet showed 'ababab' where a text field printed 'ab', exit 0."""
        if style not in self.fills:
            from openpyxl.cell.read_only import ReadOnlyCell

            self.fills[style] = ReadOnlyCell(self.ws, 1, 1, None, style_id=style).alignment.horizontal == "fill"
        if self.fills[style]:
            return ("this cell is aligned as Fill, so the sheet repeats what it holds across the cell ('ab' shows as "
                    "'ababab'), where pnp reads it once: align it otherwise")
        return None

    def _zero_unshown(self, value: object) -> str | None:
        """The refusal of a cell holding the number 0 in a sheet whose view shows such a cell as blank (Excel's
        option "Show a zero in cells that have zero value" off), or None: the sheet showed nothing where a text
        field printed 0, exit 0."""
        if self.zeros_hidden and isinstance(value, (int, float)) and not isinstance(value, bool) and value == 0:
            return ("this number cell holds 0, and the sheet's view shows a zero as blank (its option \"Show a zero "
                    "in cells that have zero value\" is off), so the sheet shows nothing where pnp reads 0: turn "
                    "the option on (or delete the number)")
        return None

    def _spend_text(self, chars: int, column: int) -> None:
        """Counts a text cell's `chars` (in `column` of the row read) against the sheet's room; LoadError at the
        cell past MAX_SHEET_TEXT."""
        self.room.text -= chars
        game_left = spend_sheet_text(chars)
        if self.room.text < 0 or game_left is not None and game_left < 0:
            said = (f"the sheet's text cells hold more than {MAX_SHEET_TEXT // 2**20} MB of text together" if
                    self.room.text < 0 else f"the game's spreadsheets' text cells hold more than "
                    f"{MAX_GAME_SHEET_TEXT // 2**20} MB of text together (each time one is read)")
            raise LoadError(f"{said} (a shared text counted each time a cell reads it), more than pnp reads: keep "
                            "long texts in YAML, each once", Mark(self.where, self.row, column))

    def _number_format(self, style: int, column: int, value: object) -> str:
        """The number format of the cell style numbered `style`, as openpyxl's read-only cell reads it; LoadError
        at the cell (in `column` of the row read) when the style names a format the workbook has not (an
        IndexError naming no cell), or, for a number `value`, one of the built-in formats the standard leaves to
        the spreadsheet program's language, which openpyxl reads as General (_LANGUAGE_FORMATS)."""
        if style not in self.formats:
            from openpyxl.cell.read_only import ReadOnlyCell
            from openpyxl.styles.numbers import BUILTIN_FORMATS

            number = self.ws.parent._cell_styles[style].numFmtId
            try:
                self.formats[style] = ReadOnlyCell(self.ws, 1, 1, None, style_id=style).number_format or "General"
            except IndexError:
                raise LoadError(f"this cell's style ({style}) has number format {number}, which the workbook's "
                                "styles do not hold: the file is damaged", Mark(self.where, self.row, column)) from None
            if number in _LANGUAGE_FORMATS and number not in BUILTIN_FORMATS:
                self.language_formats[style] = number
        if style in self.language_formats and isinstance(value, (int, float)) and not isinstance(value, bool):
            raise LoadError(f"this number cell ({_quoted_number(value)}) has the built-in number format "
                            f"{self.language_formats[style]}, which a spreadsheet program shows as its language "
                            "does (a date in Japanese or Chinese, Thai digits), not as the number pnp reads: format "
                            "the cell as General, or as text and type the text", Mark(self.where, self.row, column))
        return self.formats[style]


# The built-in number formats (numFmtId) a workbook may use without writing their codes, which the standard leaves
# to the reader's language (ECMA-376 18.8.30): dates in Chinese, Japanese and Korean (27 to 36, 50 to 58), Thai
# numbers and dates (59 to 81); openpyxl reads each as General
_LANGUAGE_FORMATS = frozenset([*range(27, 37), *range(50, 82)])


def excel_length(text: str) -> int:
    """A text's length as Excel counts it, in UTF-16 code units: a character past U+FFFF (an emoji) counts two."""
    return len(text) + sum(ord(char) > 0xFFFF for char in text) if not text.isascii() else len(text)


def _longer_than_a_cell(text: str) -> str | None:
    """The refusal of a text cell holding more than MAX_CELL_CHARS characters as Excel counts them (a character
    past U+FFFF two), or None: no Excel cell holds it whole, and pnp writes no such cell back (a workbook's cell
    of 40,000 characters was read whole, and the YAML converted from it refused as a workbook again)."""
    if (units := excel_length(text)) <= MAX_CELL_CHARS:
        return None
    return (f"this cell holds a text of {units:,} characters as a workbook counts them, and a workbook cell holds "
            f"at most {MAX_CELL_CHARS:,} (Excel does not keep it whole): keep a text this long in a YAML table")


def _first_cell(cells: str) -> tuple[int, int]:
    """The (row, column) of the first cell of a range of cells `cells` (its sqref: 'B2:B9 D4'), or (1, 1)."""
    first = _CELL_NAME.match(cells)
    return (int(first[2]), column_number(first[1])) if first else (1, 1)


def _condition_formattings(root: Any, tags: collections.Counter[str]) -> list[Any]:
    """The conditional formattings of the sheet whose XML's root element is `root` and whose elements' `tags` are
    counted (_tags), wherever beside its cells (_is_condition_formatting), as _SheetRead.beside_cells meets them:
    found by their tags in C, before the elements beside the cells are counted (looked at one by one in Python,
    a sheet of 900,000 elements in its extLst took 2 s more to be refused)."""
    condition_tags = [tag for tag in tags if local_name(tag) == "conditionalFormatting"]
    return [element for part in root if not (root.tag == _CELL_PATH[0] and part.tag == _CELL_PATH[1])
            for tag in condition_tags for element in part.iter(tag)]


def _is_condition_formatting(element: Any) -> bool:
    """Whether a sheet's element is a conditional formatting: a <conditionalFormatting>, or Excel 2010's
    <x14:conditionalFormatting> in the sheet's extLst."""
    return local_name(element.tag) == "conditionalFormatting"


def _condition_range(formatting: Any) -> str:
    """The cells a conditional formatting applies to, as written ('B2:B9 D4'): its sqref, or the text of the
    <xm:sqref> element Excel 2010 writes in an <x14:conditionalFormatting>. (Read one way where its first cell's
    style is kept and another where its rules are judged, an x14 rule was judged on the default style's fill.)"""
    return (formatting.get("sqref") or next((part.text or "" for part in formatting
                                             if local_name(part.tag) == "sqref"), "")).strip()


def _rule_shows_otherwise(rule: Any, style: Any) -> str | None:
    """What a conditional formatting's `rule` of differential style `style` (_SheetRead._rule_style) does to the
    text its cells show, or None (a colour, a font, a border change no character): a number format of its own,
    or a data bar or an icon set shown without the value."""
    if style is not None and style.numFmt is not None:
        return f"shows them in the number format {shown(style.numFmt.formatCode or '')}"
    for part in rule.iter():
        if local_name(part.tag) == "numFmt":  # (one out of its place in the rule: taken as its own)
            return f"shows them in the number format {shown(part.get('formatCode') or '')}"
        if local_name(part.tag) in ("dataBar", "iconSet") and part.get("showValue") in ("0", "false"):
            return f"shows its {'bar' if local_name(part.tag) == 'dataBar' else 'icon'} alone, not their values,"
    return None


def _shown_otherwise(value: object, code: str) -> str | None:
    """Why a cell's value is refused when its number format `code` makes the sheet show it otherwise than pnp
    reads it, or None: a text shown with more or less (_text_shown_otherwise), a number shown as nothing
    (_number_hidden)."""
    if isinstance(value, str) and value and _text_shown_otherwise(code):
        return (f"this text cell is formatted as {shown(code)}, so the sheet shows it otherwise than the text it "
                "holds, which pnp reads: format the cell as General or Text and type the text as it should read")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and not math.isnan(value) \
            and _number_hidden(code, (value > 0) - (value < 0)):
        return (f"this number cell ({_quoted_number(value)}) is formatted as {shown(code)}, so the sheet shows "
                "nothing where pnp reads the number: format the cell as General (or delete the number)")
    return None


def _past_excel_digits(value: object) -> str | None:
    """The refusal of a number cell written as a whole number of more digits than a spreadsheet keeps (15
    significant: Excel's specifications and limits), or None. A program other than the spreadsheet may write
    <v>12345678901234567890</v>; Excel and LibreOffice read it as a float, keep 12345678901234600000 and show
    1.23457E+19, and openpyxl read all 20 digits, which pnp printed (exit 0) though no spreadsheet ever showed them.
    (A float cell is read as the sheet keeps it, in 15 digits: _in_excel_digits.)"""
    if not isinstance(value, int) or isinstance(value, bool) or -10**15 < value < 10**15:
        return None  # (a whole number of at most 15 digits is kept whole: no Decimal made for each such cell)
    kept = _EXCEL_DIGITS.plus(decimal.Decimal(value))
    if kept == value:
        return None
    digits = len(str(abs(value)))
    return (f"this number cell holds the whole number {value}, {digits} digits, and a spreadsheet keeps a number in "
            f"15 significant digits: it holds {int(kept)} and shows {_general_text(float(kept))}, not the digits "
            "pnp would read; type the number in at most 15 significant digits, or format the cell as text and type "
            "the digits in a text field")


def _merged(cells: str, where: str) -> LoadError:
    """The refusal of a merged range of cells: the sheet shows its first cell's value across the range, and the
    others are read blank (a text merged down a column printed on the first item alone, with exit 0)."""
    row, column = _first_cell(cells)
    return LoadError(f"cells {shown(cells)} are merged: the sheet shows one value across them, and pnp reads each "
                     "row's own cells (the others as blank); unmerge them and type the value in each",
                     Mark(where, row, column))


def _cell_value(reader: Any, element: Any, where: str, row: int, column: int) -> dict[str, Any]:
    """LoadError at the cell (of sheet `where`, at `row` and `column`) when openpyxl's `reader` cannot read the
    cell `element` (a number that is not one, a shared string that is not there, a date that is not a date: the
    workbook was refused with no cell named), or reads it as an error value (#DIV/0!, or a date out of range,
    which openpyxl turns into #VALUE! with a warning): that is no data, and was printed on the card as it reads."""
    try:
        cell = reader.parse_cell(element)  # (its warnings ignored by _sheet_rows)
    except Exception as e:  # noqa: BLE001 - openpyxl casting a value that is not what its type says
        raise LoadError(f"this cell cannot be read as its type says ({type(e).__name__}: {e})",
                        Mark(where, row, column)) from None
    if cell["data_type"] == "e":
        said = "of no text" if cell["value"] is None else shown(str(cell["value"]))  # (<v/>: not Python's 'None')
        raise LoadError(f"this cell holds an error value ({said}), not data: type the value",
                        Mark(where, row, column))
    if cell["data_type"] == "s" and (text := element.find(_MAIN + "is")) is not None:
        cell["value"] = _rich_text(text)  # (read as a shared text is)
    if isinstance(value := cell["value"], _RefusedText):
        raise LoadError(value.problem, Mark(where, row, column))
    return cell


def _row_number(number: str | None, before: int, where: str) -> int:
    """The number of a row written `number` (the next one when it has none) after row `before`; LoadError
    when it is not after it, or past the last row a sheet has."""
    now = before + 1 if not number else _read_row_number(number, before, where)
    if now > MAX_SHEET_ROW:
        # (at the row it stands in, after row `before`, as a row out of order is: it was said at no line)
        raise LoadError(f"a row is numbered past {MAX_SHEET_ROW:,}, the last row a sheet has", Mark(where, before + 1, 1))
    if now <= before:
        raise LoadError(f"a row numbered {now} after row {before}: a sheet's rows are numbered from 1 up, each once "
                        "(the reader would leave this one out)", Mark(where, before + 1, 1))
    return now


def _read_row_number(number: str, before: int, where: str) -> int:
    """A row's number written `number`, as openpyxl's reader reads it (Python's int(), else a float that is a
    whole number: r="1e1" is row 10, which was taken for the next row, and openpyxl's reader then dropped every
    row after it, exit 0); LoadError when it reads none."""
    if len(number) > 20:  # (more characters than any row's number has: past the last row, not parsed)
        return MAX_SHEET_ROW + 1
    try:
        return int(number)
    except ValueError:
        pass
    try:
        value = float(number)
    except ValueError:
        value = math.nan
    if not value.is_integer():  # (NaN and infinities are not)
        raise LoadError(f"a row numbered {shown(number)}, which is no whole number: the file is damaged",
                        Mark(where, before + 1, 1))
    return int(value) if abs(value) <= MAX_SHEET_ROW else MAX_SHEET_ROW + 1


def _cell_column(name: str | None, row: int, before: int, where: str) -> int:
    """The column of a row's cell named `name` (the next one when it has no name), after the cell in column
    `before`; LoadError when it is not."""
    if name is None:
        return before + 1
    found = _CELL_NAME.fullmatch(name)
    if found is None or int(found[2]) != row:
        raise LoadError(f"a cell named {shown(name)} in row {row}: each cell is named by its column and its own "
                        "row (such as B2)", Mark(where, row, before + 1))
    column = column_number(found[1])
    if column <= before:
        raise LoadError(f"cell {name} after column {before} of its row: a row's cells are in column order, each "
                        "once (the reader would put it in the wrong place or leave it out)", Mark(where, row, column))
    return column


def _cell_problem(cell: Any, sheet: Any) -> str | None:
    """Why openpyxl could not read the value of a <c> element of the (read-only) `sheet`, or
    would read it as something else than it says, or None: its failure named the file but not the cell, a
    negative shared-text index read the last text, and a date out of range became the text #VALUE!, each
    without a word."""
    if style := _style_problem(cell.get("s"), sheet):
        return style
    kind = cell.get("t", "n")
    if stranger := next((child.tag for child in cell if child.tag not in _CELL_PARTS), None):
        # (openpyxl's reader finds a cell's parts by their names in its namespace: a value in <v> of another
        # namespace was read as blank, a formula of another namespace passed by and its cell's value unchecked)
        return (f"this cell holds a <{local_name(stranger)}> element{_namespace_said(stranger)}, which is none of a "
                "cell's parts (its value, its formula, its text): the file is damaged")
    parts = {local_name(child.tag): child for child in cell}
    if form := _form_problem(cell, kind, parts):
        return form
    value, check = parts["v"].text if "v" in parts else None, _VALUE_CHECKS.get(kind)  # (as openpyxl: no text,
    if not value or "f" in parts or check is None:  # no value; inline texts read as they are; a formula is
        return None  # refused where its value is read)
    problem = check(value, cell, sheet)
    return None if problem is None else problem.format(said=shown(value), shared=len(sheet._shared_strings))


_CELL_PARTS = {_MAIN + name for name in ("f", "v", "is", "extLst")}  # what a <c> element may hold


def _namespace_said(tag: str) -> str:
    """' of namespace ...' for an element's tag of a namespace other than a sheet's, else ''."""
    namespace = tag.rpartition("}")[0].lstrip("{")
    return f" of namespace {shown(namespace)}" if tag.startswith("{") and not tag.startswith(_MAIN) else ""


_CELL_TYPES = ("b", "d", "e", "inlineStr", "n", "s", "str")  # a cell's t="...", as the standard lists them
def _spend_game_work(units: int, mark: Mark) -> None:
    """Counts `units` of a workbook's reading (_ROW_WORK, _PARSED_CELL_WORK, _XML_BYTES_PER_CELL) against the game's
    allowance of cells; LoadError at `mark` once it is spent."""
    if units and (game_left := spend_cells(units)) is not None and game_left < 0:
        raise LoadError(f"the game's spreadsheets hold more than {MAX_GAME_CELLS:,} cells together (each time one is "
                        f"read; a workbook's row counts as {_ROW_WORK}, a cell holding anything as "
                        f"{_PARSED_CELL_WORK + 1} and each {_XML_BYTES_PER_CELL} bytes of a sheet's XML as one, for the "
                        "work of reading them): delete the rows and columns past the table's own, or keep a table this "
                        "large in YAML or CSV", mark)


# The work of reading a workbook's row element, and a cell that openpyxl reads (one holding anything), counted as
# that many cells of the game's allowance (MAX_GAME_CELLS) beside the row's width: a CSV's blank cell is read in
# about a microsecond, a workbook's row in several and such a cell in some 20 to 40. Counted as one cell of the
# row each, 21 tables reading one workbook of 60,000 rows of an empty text cell took 33 s to be refused, and 11
# reading 150,000 rows of no cell 12 s (rows of no cell were not counted). 10,000 items of 8 fields read once fit
_ROW_WORK = 4
_PARSED_CELL_WORK = 9
# ... and of parsing a sheet's XML, whole, for each table reading it: 21 tables reading one sheet of 3.6 MB parsed it
# 21 times (4 s), past the game's allowance, each refused after its parse
_XML_BYTES_PER_CELL = 64
_BLANK_TYPES = (None, "b", "d", "inlineStr", "n", "s", "str")  # those of which a cell of no value is blank


def _style_problem(style: str | None, sheet: Any) -> str | None:
    """Why a cell's style `style` (its s="...") is none of the (read-only) `sheet`'s workbook, or None."""
    # (none: the first style, as openpyxl reads it; s="" failed its reading of the number format, naming no cell)
    if style is not None and not (style.isascii() and style.isdigit()):
        return f"this cell's style is {shown(style)}, where a workbook writes a number: the file is damaged"
    if style and _counted(style) >= (styles := len(sheet.parent._cell_styles)):  # (its number format is read)
        return (f"this cell's style is {shown(style)}, and the workbook has {styles:,} (numbered from 0): the file "
                "is damaged")
    return None


def _counted(digits: str) -> int:
    """The number ASCII `digits` write, but past any count a workbook holds when they are more than 18 (openpyxl's
    int() refuses more than 4,300: a style or a shared text's number of 5,000 digits, leading zeros too,
    refused the workbook with Python's words, naming no cell)."""
    return int(digits) if len(digits) <= 18 else 10**18


def _form_problem(cell: Any, kind: str, parts: Mapping[str, Any]) -> str | None:
    """Why a <c> element of type `kind` holding `parts` (its elements by name) is not a cell as a workbook
    writes one, or None: a type the standard has not (read as text), or its value where its type does not put
    it (an inline text in <v>, or a shared text's cell holding <is>, read as blank), or a part given twice (of
    two texts in <is>, the last read): each read otherwise than the file says, without a word."""
    if kind not in _CELL_TYPES:
        return (f"this cell's type is {shown(kind)}, which is none of a workbook's ({', '.join(_CELL_TYPES)}): the "
                "file is damaged")
    if len(parts) < len(cell):  # (two texts in one <is>: _rich_text_problem)
        return "this cell holds a part twice (its value, or its text): the file is damaged"
    misplaced = "v" if kind == "inlineStr" else "is"  # (an inline text is in <is>, every other value in <v>)
    if misplaced in parts:
        return (f"this cell of type {shown(kind)} holds a <{misplaced}>, where a workbook does not put its value (it "
                "would be read as blank): the file is damaged")
    if split := next((name for name in ("v", "f") if name in parts and len(parts[name])), None):
        return (f"this cell's <{split}> holds an element inside its text, and would be read up to it (2<x/>9 as 2): "
                "the file is damaged; save it again from the spreadsheet program")
    return None


def _shared_text_problem(value: str, cell: Any, sheet: Any) -> str | None:
    index = value.strip()  # (as int() reads it)
    if index.isascii() and index.isdigit() and _counted(index) < len(sheet._shared_strings):
        return None
    return ("this cell refers to shared text {said}, and the workbook has {shared:,} (numbered from 0): the file "
            "is damaged; save it again from the spreadsheet program")


def _number_problem(value: str, cell: Any, sheet: Any) -> str | None:
    number = value.strip()
    # (a workbook writes at most 17 digits: openpyxl's int() refused 5,000 of them, zeros first, in Python's words)
    if len(number) > 100:
        return (f"this number cell holds {{said}}, {len(number):,} characters long (a workbook writes at most 17 "
                "digits): the file is damaged")
    if not _FLOAT.fullmatch(number) or not math.isfinite(float(number)):
        return "this number cell holds {said}, which is no finite number: the file is damaged"
    style = cell.get("s") or "0"
    if int(style) in sheet.parent._date_formats:  # a date kept as a number of days, as openpyxl reads it
        from openpyxl.utils.datetime import from_excel

        try:
            from_excel(float(number), sheet.parent.epoch,
                       timedelta=int(style) in sheet.parent._timedelta_formats)
        except (OverflowError, ValueError):
            return "this cell is formatted as a date, and holds {said}, which is no date: the file is damaged"
    return None


def _true_false_problem(value: str, cell: Any, sheet: Any) -> str | None:
    if value.strip() in ("0", "1"):
        return None
    return "this true/false cell holds {said}; a workbook writes 1 or 0: the file is damaged"


def _date_problem(value: str, cell: Any, sheet: Any) -> str | None:
    from openpyxl.utils.datetime import from_ISO8601

    try:
        from_ISO8601(value)
    except (ValueError, OverflowError):
        return "this date cell holds {said}, which is no date: the file is damaged"
    return None


def _error_value_problem(value: str, cell: Any, sheet: Any) -> str:
    return ("this cell holds the error value {said} (what a formula gave, kept without it); type the value the "
            "cell should hold")


# a cell's type (its t="...") -> what is wrong with a value of that type (a message to format), or None
_VALUE_CHECKS: dict[str, Callable[[str, Any, Any], str | None]] = {
    "s": _shared_text_problem, "n": _number_problem, "b": _true_false_problem, "d": _date_problem,
    "e": _error_value_problem}


# A number format's parts: a quoted literal, an escaped character, a space the width of a character (_x), a fill
# (*x), a colour or condition ([Red]), a section's end (;), or one character
_FORMAT_PART = re.compile(r'"[^"]*"?|\\.?|_.?|\*.?|\[[^\]]*\]?|.', re.DOTALL)


@functools.lru_cache(maxsize=256)  # (a sheet has a few formats, its cells many)
def _text_shown_otherwise(code: str) -> bool:
    """Whether the number format `code` shows a text cell otherwise than its text: its text section (the fourth,
    or a last one holding @) adds to the text ("Step: "@, @" cm", @@) or hides it (;;;). Colours, widths of
    spaces and a fill of spaces change no character (pnp read the text alone, where the sheet showed more or
    nothing, exit 0)."""
    sections = _format_sections(code)
    if len(sections) < 4 and "@" not in sections[-1]:
        return False  # (no text section: a text is shown as it is)
    text = sections[3] if len(sections) >= 4 else sections[-1]
    return "".join(p for p in text if not p.startswith(("[", "_")) and p != "* ") != "@"


def _format_sections(code: str) -> list[list[str]]:
    """The parts (_FORMAT_PART) of each section of the number format `code`, in order."""
    sections: list[list[str]] = [[]]
    for part in _FORMAT_PART.findall(code):
        if part == ";":
            sections.append([])
        else:
            sections[-1].append(part)
    return sections


def _format_colour_tag(code: str, value: object) -> str | None:
    """The colour (its name or ColorN, as written, without brackets) the number format `code` shows `value` in,
    or None: a number's section by its sign, a text's fourth section (or the one section of a format of one, or
    the last when it holds @); none in a format of conditions ([>100]), which chooses its sections otherwise."""
    if isinstance(value, str):
        return _section_colour(code, None)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and not math.isnan(value):
        return _section_colour(code, (value > 0) - (value < 0))
    return None


@functools.lru_cache(maxsize=256)
def _section_colour(code: str, sign: int | None) -> str | None:
    """_format_colour_tag of a number of this `sign` (1, -1, 0), or of a text (None)."""
    sections = _format_sections(code)
    if sign is None:
        section = sections[3] if len(sections) >= 4 else sections[-1] if (
            len(sections) == 1 or "@" in sections[-1]) else None
    else:
        section = chosen[0] if (chosen := _sign_section(sections, sign)) else None
    found = next((part for part in section or () if _COLOUR.fullmatch(part)), None)
    return found[1:-1] if found else None


def _sign_section(sections: list[list[str]], sign: int) -> tuple[list[str], bool] | None:
    """(The section of a number format's `sections` that shows a number of this `sign` (1, -1, 0), its parts as
    written, whether it is the sign's own): the first for one above zero, the second for one below, the third for
    zero, the first where there is none (not the sign's own: it shows a negative number's minus itself); None in
    a format of conditions ([>100]), which chooses its sections otherwise. (The one choice of a section: the
    colour shown, a section shown as nothing and the digits shown each made it.)"""
    numbers = sections[:3] if len(sections) >= 4 or "@" not in sections[-1] else sections[:-1]
    if not numbers or any(part.startswith("[") and part[1:2] in "<>=" for each in numbers for part in each):
        return None
    chosen = {1: 0, -1: 1, 0: 2}[sign]
    return (numbers[chosen], True) if chosen < len(numbers) else (numbers[0], False)


@functools.lru_cache(maxsize=256)
def _number_hidden(code: str, sign: int) -> bool:
    """Whether the number format `code` shows a number of this `sign` (1, -1 or 0) as nothing: its section for
    it (the first for one above zero, the second for one below, the third for zero, the first where there is
    none) shows no character, as ;;; or 0;; do (the sheet showed a blank cell where pnp read the number, exit
    0): each part of it shows none but spaces (_shows_no_character, or a space quoted or escaped). A currency
    ([$USD-409]), an elapsed time ([m]) or a fill of a character (*-) shows one (refused as showing nothing, it
    was refused for what it is not). A format of conditions ([>100]) chooses its sections otherwise: it is let be."""
    if (chosen := _sign_section(_format_sections(code), sign)) is None:
        return False
    section, _ = chosen
    return all(_shows_no_character(p) or not (p.strip('"') if p.startswith('"') else p.removeprefix("\\")).strip()
               for p in section)


@dataclasses.dataclass(frozen=True)
class _FormattedNumber:
    """A number cell whose number format shows it otherwise than as it is (007, 50%, 1/2): a text field would
    print what the cell holds (7, 0.5), not what the sheet shows; a number field reads the number."""

    value: int | float
    format: str

    def __str__(self) -> str:
        return excel_spelt(str(_plain_number(self.value)), self.value)


def excel_spelt(text: str, value: int | float) -> str:
    """`text`, a number's (`value`'s), as a spreadsheet spells the number a cell holds where it has an exponent:
    in 15 significant digits, E+20 or E-07 (a message quoted a cell's 1E+20 in Python's form, 1e+20)."""
    if "e" not in text or not math.isfinite(value):
        return text
    return _with_exponent(value, 15)


def _with_exponent(value: int | float, digits: int) -> str:
    """`value` as a spreadsheet spells a number with an exponent, in at most `digits` significant digits: 1E+20,
    1.23457E+19 (the zeros ending its mantissa, and a point left alone, not written)."""
    mantissa, exponent = f"{value:.{digits - 1}E}".split("E")
    return mantissa.rstrip("0").rstrip(".") + "E" + exponent


# Number formats that show a number as its text is (Text shows a number cell as General does; "0" a whole one)
_SHOWN_AS_IT_IS = {"general", "@"}  # (in any case: a format code's words are)


def _number_as_shown(value: Any, shape: str) -> Any:
    """A cell's value, a number kept with its number format `shape` when that shows it otherwise
    (_FormattedNumber)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return value
    # "0" shows a whole number's digits, which a text field prints only below 2**53 (1E+20 was printed "1e+20"
    # where the sheet showed 100000000000000000000, exit 0)
    if (_shown_as_it_is(shape) and _general_number(value) == _plain_number(value)
            or shape == "0" and isinstance(_plain_number(value), int)):
        return value
    return _FormattedNumber(value, shape)


@functools.lru_cache(maxsize=256)
def _shown_as_it_is(code: str) -> bool:
    """Whether the number format `code` is General or Text, maybe with a colour or spaces that show no character
    ([Blue]General: a number field's 30 was refused as shown otherwise, and so was a text field's)."""
    sections = _format_sections(code)
    return len(sections) == 1 and "".join(p for p in sections[0] if not _shows_no_character(p)).lower() in _SHOWN_AS_IT_IS


def _general_shows(value: int | float) -> bool:
    """Whether the General format shows a number as a number's text (_general_number)."""
    return _general_number(value) is not None


def _general_number(value: int | float) -> int | float | None:
    """The number the General format shows for `value`, at a column's standard width: its 15 significant digits,
    as Excel rounds (0.30000000000000004, a sum's float, shown as 0.3 and refused in a text field; its text is
    "0.3"), when those are at most 11 digits and no exponent; None where General shows it otherwise (123456789012
    as 1.23457E+11, 1e-07 as 1E-07, which a text field printed as Python writes them, exit 0)."""
    rounded = _plain_number(float(_EXCEL_DIGITS.plus(decimal.Decimal(repr(value)))))
    text = str(rounded)  # (an infinity or NaN: "inf", "nan")
    if "e" in text or "n" in text or len(text.lstrip("-").replace(".", "")) > 11:
        return None
    return rounded  # type: ignore[return-value]


# How a workbook writes a character XML cannot hold (a carriage return, a control character) in a text: _x000D_,
# and a text's own "_x" before four hex digits and "_" as _x005F_x...; openpyxl reads them as they are written
# (and drops "x005F_" from shared texts only: a typed "_x0041_" is read there as Excel's "A"), so a text typed with
# a line break from Windows printed "_x000D_"
_EXCEL_ESCAPE = re.compile(r"_x([0-9A-Fa-f]{4})_")


def _unescaped(text: str) -> str:
    """A workbook's text as Excel shows it: each _xHHHH_ the character it stands for."""
    return _EXCEL_ESCAPE.sub(lambda found: chr(int(found[1], 16)), text) if "_x" in text else text


def _escaped(text: str) -> str:
    """A text as a workbook writes it, for Excel (and _unescaped) to show it as it is: a "_" before "xHHHH_" as
    _x005F_."""
    return re.sub(r"_(?=x[0-9A-Fa-f]{4}_)", "_x005F_", text)


class _Room:
    """The values a sheet being read may still hold (what is left of the game's allowance, as _records counts
    them), and how many that is in words; the values counted so far; the cells it may still hold (MAX_CELLS);
    and the characters its text cells may still hold (MAX_SHEET_TEXT)."""

    def __init__(self) -> None:
        self.left, self.too_many = values_left(MAX_EXPANDED_VALUES)
        self.counted = 0
        self.cells = MAX_CELLS
        self.text = MAX_SHEET_TEXT


def _check_row_size(kept: int, line: int, cells: Sequence[Any], where: str, room: _Room) -> None:
    """LoadError at a row past MAX_ROWS (blank rows counted: two million empty CSV lines took 14 s and 550 MB,
    each kept until the items were made), past MAX_CELLS, or a row of more than MAX_COLUMNS cells, in a CSV
    file as in a sheet;
    or at an item (a row after the header holding a value) past the `room` left, its values counted as _records
    counts a row's (those of its cells' YAML flow texts aside): the game's values were spent, and one file read as
    200 tables was read whole for each; a sheet of 200,000 values was read whole before _records refused it (the
    refusal _records would give, found sooner)."""
    if kept >= MAX_ROWS:
        raise LoadError(f"sheet has more than {MAX_ROWS:,} rows", Mark(where, line, 1))
    room.cells -= len(cells)
    game_left = spend_cells(len(cells))
    if room.cells < 0 or game_left is not None and game_left < 0:  # (one file read as many tables, too)
        said = (f"sheet has more than {MAX_CELLS:,} cells in its rows" if room.cells < 0 else
                f"the game's spreadsheets hold more than {MAX_GAME_CELLS:,} cells together (each time one is read)")
        raise LoadError(f"{said} (blank ones counted: delete the columns and rows past the table's own)",
                        Mark(where, line, 1))
    filled = sum(not _blank(c) for c in cells) if kept else 0
    if filled:
        counted = _item_values(filled)
        room.left, room.counted = room.left - counted, room.counted + counted
        if room.left < 0:
            spend_values(room.counted)  # (what _records would have spent refusing it)
            raise LoadError(f"{room.too_many} (each counted in every list and mapping around it, as in YAML)",
                            Mark(where, line, 1))
    if len(cells) > MAX_COLUMNS:
        raise LoadError(f"row has more than {MAX_COLUMNS:,} columns", Mark(where, line, MAX_COLUMNS + 1))


def _blank(value: object) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _records(rows: Rows, where: str, schema: Schema, ids: Mapping[Any, Field | None]) -> MarkedList:
    """The header row names the fields; every later row that is not blank is one item. The values read count
    against the game's allowance whether the sheet is then refused or not: one file read as many tables was
    read again for each, up to the end (a header missing a field) or the limit. Rows that hold nothing at all are
    a table of no items, as an empty file and an empty sheet are (a CSV file of blank lines, or of commas, was
    refused as a header that is empty, where a file of 0 bytes was read as no items)."""
    items = MarkedList(mark=Mark(where, 1, 1))
    if all(_blank(cell) for _, cells in rows for cell in cells):
        return items
    line, header = rows[0]
    by_text = _fields_by_text(schema)
    names = [name if name is None else by_text.get(name, name) for name in _header(header, where, line, by_text)]
    # each column's (field, how its cells are read, where its name is written), None where the header cell is
    # blank: worked out once for all its cells (a ref's field was looked up for every cell)
    columns = [None if name is None else (name, _read_as(schema.fields.get(name), ids), Mark(where, line, col))
               for col, name in enumerate(names, start=1)]
    read, allowed = [0], values_left(MAX_EXPANDED_VALUES)  # values read so far, as YAML counts them; how many may be
    try:
        for line, cells in rows[1:]:
            if not all(_blank(c) for c in cells):  # (spreadsheets end in empty rows)
                items.append(_row_item(cells, columns, Mark(where, line, 1), (read, *allowed)))
                items.marks.append(items[-1].mark)
        _required_columns(names, where, rows[0][0], schema)
    finally:
        spend_values(read[0])
    return items


def _item_values(fields: int) -> int:
    """The values an item of `fields` fields counts for, as YAML's would: each value in every list and mapping
    around it (its key and value twice, the item twice)."""
    return 2 * (1 + 2 * fields)


def _row_item(cells: list[Any], columns: list[tuple[Any, Field | None, Mark] | None], mark: Mark,
              count: tuple[list[int], int, str]) -> Record:
    """The item of a row (at `mark`, its first cell), each cell read as its column says (_records); `count`:
    (values read, as a list of one, the most the sheet may hold, how many that is in words): its values are
    added, and LoadError past the most."""
    read, limit, too_many = count
    data: dict[Any, Any] = {}
    marks: dict[Any, Place | None] = {}
    key_marks: dict[Any, Place | None] = {}
    written: dict[Any, str] = {}  # a number as its cell's text writes it, where it prints otherwise (4.50, not 4.5)
    for col, cell in enumerate(cells, start=1):
        if _blank(cell):
            continue
        at = Mark(mark.file, mark.line, col)
        column = columns[col - 1] if col <= len(columns) else None
        if column is None:
            raise LoadError("a value in a column without a name in the header row", at)
        name, field, named_at = column
        data[name], inside = _cell(cell, field, at)
        if isinstance(cell, str) and type(data[name]) in (int, float) and str(data[name]) != cell.strip():
            written[name] = cell.strip()  # (said as written, as a YAML table's: Record.written_of)
        elif type(data[name]) is float and not isinstance(cell, str) and (said := _cell_said(data[name])) != str(
                data[name]):
            written[name] = said
        marks[name], key_marks[name] = at, named_at
        read[0] += inside  # a cell of YAML flow text counts the values it holds, aliases expanded, as a file does
        _check_values(read[0], limit, too_many, at)
    # counted as the same items in YAML count (each value in every list and mapping around it: its key and
    # value twice, the item twice), so that a sheet holds no more than a YAML file may: 99,000 rows of four
    # cells took 11 s to validate
    read[0] += _item_values(len(data))
    _check_values(read[0], limit, too_many, mark)
    return Record._made(data, marks, key_marks, mark, written or None)


def _cell_said(value: float) -> str:
    """A number cell's float as a message quotes it (a number cell has no text): as pnp prints it
    (0.30000000000000004 as 0.3), an exponent as a spreadsheet writes it (excel_spelt: 1E+17, which was said in
    Python's form, 1e+17)."""
    return excel_spelt(printed_number(value), value)


def _check_values(values: int, limit: int, too_many: str, mark: Mark) -> None:
    """LoadError at `mark` when a sheet's `values` so far pass its `limit`."""
    if values > limit:
        raise LoadError(f"{too_many} (each counted in every list and mapping around it, as in YAML)", mark)


def _fields_by_text(schema: Schema) -> dict[str, Any]:
    """Each of the schema's fields by the text of its header cell: a header cell is text, and names the field whose
    name reads as it (game.yaml's `no:` or `1:` is no text)."""
    return {str(name): name for name in schema.fields}


def _header_text(cell: object, fields: Mapping[str, Any], mark: Mark | None = None) -> str | None:
    """The name a header cell holding `cell` (at `mark`) gives its column: None when blank, else its text, trimmed
    unless it is the name of one of the `fields` as it is (a field named ' pad' was read back from its own converted
    file as 'pad', exit 0); a true/false cell as the sheet shows it, TRUE or FALSE (it was named 'True', Python's
    word), and a number cell too (_header_number)."""
    if _blank(cell):
        return None
    if isinstance(cell, (int, float, _FormattedNumber)) and not isinstance(cell, bool):
        return _header_number(cell, mark)
    return text if (text := shown_text(cell)) in fields else text.strip()


def _header_number(cell: int | float | _FormattedNumber, mark: Mark | None) -> str:
    """The name a header cell holding a number gives its column: the text the sheet shows (General's 1E+20, 007 of
    7 formatted 000), as a message then says it (it was said as Python writes the number, 'unknown field
    1e+20'); LoadError at `mark` where that text is not sure (a number General rounds, a fraction)."""
    number, code = (cell.value, cell.format) if isinstance(cell, _FormattedNumber) else (cell, "General")
    text = _general_text(number) if _shown_as_it_is(code) else _shown_number(number, code)
    if text is None:
        raise LoadError(f"this header cell holds a number ({_quoted_number(number)}) formatted as {shown(code)}, "
                        "which the sheet shows otherwise than pnp would name its column: format the cell as text "
                        "and type the field's name", mark)
    return text


def _general_text(value: int | float) -> str | None:
    """The text the General format shows for a number, where that is sure: the number's text when it is short
    (_general_number), else, for a number of 12 whole digits or more or under 0.0001, its six significant digits
    or fewer in scientific notation, as Excel writes it (1E+20, 1.23457E+11, 1E-05); None for the rest (a number
    of many decimals, which General rounds to the column's width)."""
    if (number := _general_number(value)) is not None:
        return str(number)
    if not math.isfinite(value) or 1e-4 <= abs(value) < 1e11:
        return None
    return _with_exponent(value, 6)


def _header(header: list[Any], where: str, line: int, fields: Mapping[str, Any]) -> list[str | None]:
    """The name each header cell gives its column (_header_text: None where blank); LoadError at a name given
    twice, or a header of no name."""
    names: list[str | None] = []
    seen: dict[str, int] = {}
    for col, cell in enumerate(header, start=1):
        if (name := _header_text(cell, fields, Mark(where, line, col))) is None:
            names.append(None)
            continue
        if name in seen:
            raise LoadError(f"column {named(name)} appears twice in the header row (first in column {seen[name]})",
                            Mark(where, line, col))
        seen[name] = col
        names.append(name)
    if not seen:
        raise LoadError("the first row names the fields (id, name, ...); it is empty", Mark(where, line, 1))
    return names


def _required_columns(names: list[Any], where: str, line: int, schema: Schema) -> None:
    """LoadError at the header when a field every item needs has no column: a typo in a header cell would
    otherwise be one 'missing field' error per row."""
    present = {n for n in names if n is not None}
    missing = [n for n, f in schema.fields.items() if f.required and n not in present]
    if not missing:
        return
    strangers = [n for n in names if n is not None and n not in schema.fields]
    close = closest(str(missing[0]), strangers)
    col = names.index(close[0]) + 1 if close else 1
    hint = f"; is column {shown(close[0])} meant to be {shown(missing[0])}?" if close else ""
    also = f" (nor for {', '.join(shown(n) for n in missing[1:])})" if len(missing) > 1 else ""
    raise LoadError(f"the header row has no column for {shown(missing[0])}, a field every item needs{also}{hint}",
                    Mark(where, line, col))


def _plain_number(value: object) -> object:
    """A workbook's 3.0 is the whole number 3 (Excel keeps every number as a float)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def _quoted_number(value: int | float) -> str:
    """A number cell's number as a message quotes it: as pnp prints a number (a cell holds no text of it), a
    float without the noise of binary fractions (0.30000000000000004 was quoted so where the sheet shows 0.3)."""
    return excel_spelt(printed_number(int(value) if isinstance(value, float) and value.is_integer()
                                      and abs(value) < 2**53 else value), value)  # (as _plain_number: 3.0 is 3)


def _cell(value: object, field: Field | None, mark: Mark) -> tuple[Any, int]:
    """(A cell's value as its field's type reads it, the values it holds within it: none but in YAML flow
    text); what does not read is kept as written, so the schema check reports it at this cell."""
    if not isinstance(field, (List, Map, Nested)) or not isinstance(value, str):
        return _cell_scalar(value, field, mark), 0
    _cell_scalar(value, None, mark)  # (the checks of any cell's text)
    found, size = _yaml_value(value.strip(), mark)
    return _remarked(found, mark), size


def _cell_texts(value: Any) -> tuple[str, str]:
    """The texts a cell may show for an enum's `value`: as a sheet writes it, and as Python does."""
    return cell_text(value), str(value)


def _cell_scalar(value: object, field: Field | None, mark: Mark) -> Any:
    """_cell's value of a cell that holds one value."""
    value = _plain_number(_number_of(value, field, mark))
    if isinstance(value, float) and not math.isfinite(value):  # <v>1e999</v>: printed 'inf' in a text field
        raise LoadError(f"this cell's number ({shown(value)}) is not a finite number", mark)
    if too_close_to_zero(value):  # (a workbook's <v>5E-324</v>: Excel shows 0)
        raise LoadError(closer_to_zero(shown(repr(value))), mark)
    if isinstance(value, str) and (problem := _text_problem(value)):
        raise LoadError(problem, mark)
    if isinstance(field, Str):  # str, text, id, icon: the cell as the sheet shows it
        return shown_text(value)
    if isinstance(field, Enum):  # the value the cell shows (a "2" typed in a workbook is the number 2)
        text = cell_text(value).strip()
        found = field.first_of(text, _cell_texts)  # (true as written, or True)
        return value if found is None else found
    if not isinstance(value, str):
        return value  # a workbook's number or true/false, already typed
    text = value.strip()
    if isinstance(field, TrueFalse):
        return {"true": True, "false": False, "yes": True, "no": False}.get(text.lower(), value)
    return _scalar(text, mark)  # a number, or a field the table does not declare


def _text_problem(text: str) -> str | None:
    """Why a cell cannot hold `text`, or None: the rule of a YAML table's text, and the characters a YAML file
    refuses as they are (a control character, U+FFFE)."""
    if control := control_problem(text):
        return control
    if bad := _NOT_PRINTABLE.search(text):
        return (f"character U+{ord(bad.group()):04X} is not allowed in a table's text (a control character prints "
                "as nothing or as a box)")
    return None


def _number_of(value: object, field: Field | None, mark: Mark) -> object:
    """The number of a _FormattedNumber (any other value as it is); in a text or an enum `field`, which print
    what the sheet shows, the text the sheet shows (_shown_number), LoadError at `mark` where that is not known
    (an enum cell of 0.5 formatted 0% was refused though 50% was one of its values, and one formatted 0.0% was
    matched with a value 0.5, which printed where the sheet showed 50.0%). In any other field (a number, a
    derived field typed by hand, a ref to numbered ids) the number, where the sheet shows that number
    (_number_shown), else LoadError at `mark`: a cost of 0.5 formatted 0% was read as 0.5 where the sheet
    showed 50%, 1.4 formatted 0 as 1.4 where it showed 1, and 5 formatted "No. "0 or 0;0 (-5 shown as 5) as
    the number, each with exit 0."""
    if not isinstance(value, _FormattedNumber):
        return value
    if isinstance(field, (Str, Enum)):
        if (text := _shown_number(value.value, value.format)) is not None:
            return text
        if _digits_shown(value.format, (value.value > 0) - (value.value < 0)) == (None, True) \
                and (general := _general_number(value.value)) is not None:  # (its section General, or -General)
            return general
        raise LoadError(f"this number cell ({value}) is formatted as {shown(value.format)}, so the sheet shows it "
                        f"otherwise than its {'text' if isinstance(field, Str) else 'enum'} field would print it: "
                        "format the cell as text and type the text", mark)
    if (number := _number_shown(value.value, value.format)) is not None:
        return number
    raise LoadError(f"this number cell ({_quoted_number(value.value)}) is formatted as {shown(value.format)}, so "
                    "the sheet shows it as "
                    "another number or with more than its digits (a percent, a fraction, a rounding, text around "
                    "it), where pnp reads the number it holds: format the cell as General or as Number (0, 0.00) "
                    "and type the number", mark)


def _number_shown(value: int | float, code: str) -> int | float | None:
    """The number `value` as the number format `code` shows it, where it shows it as itself, its digits alone, in
    any language, else None: General or Text (in any section, as General shows it: _general_shows), or a format of
    digits (_digits_shown) showing every decimal of the number as Excel shows it (3.5 as 3.50, 1234 as 1,234 or
    1.234: the same number), in its 15 significant digits, rounded half away from zero: 0.30000000000000004 (a
    sum's float, as a program writes 0.1 + 0.2) under 0.0 is 0.3, as the sheet shows it (it was refused as shown
    otherwise, where General's was read). General reads it so too (_in_excel_digits): it read the float held, and
    0.1234567890123456 converted to YAML and printed by '%r' so under General, as 0.123456789012346 under 0.0...0."""
    if _shown_as_it_is(code):
        return _in_excel_digits(value)
    digits = _digits_shown(code, (value > 0) - (value < 0))
    if digits is None or not abs(value) < _LARGEST_SHOWN:
        return None
    places, zero_shown = digits
    if places is None:
        return _in_excel_digits(value) if _general_shows(value) else None
    exact = decimal.Decimal(repr(value))
    # (rounded to the places only where it has more decimals: 1234.5 quantized to 50 places, as "0.000..." of 50
    # zeros shows it, had more digits than a context holds, a traceback; so rounded, it has at most 16)
    shown = _EXCEL_DIGITS.plus(exact)
    decimals = -int(shown.as_tuple().exponent)  # (a finite number's: checked above)
    rounded = shown if decimals <= places else shown.quantize(
        decimal.Decimal(1).scaleb(-places), rounding=decimal.ROUND_HALF_UP, context=_WHOLE_DIGITS)
    if rounded != shown or not (zero_shown or value != 0):  # (# shows 0 as nothing)
        return None
    return value if shown == exact else type(value)(shown)


def _in_excel_digits(value: int | float) -> int | float:
    """A float as a sheet shows and keeps it, in Excel's 15 significant digits, rounded half away from zero (a
    whole number, which a workbook holds as written, as it is; a float whose rounding would pass the largest float
    as it is, for the check of a finite number)."""
    if not isinstance(value, float) or not math.isfinite(value):
        return value
    rounded = float(_EXCEL_DIGITS.plus(decimal.Decimal(repr(value))))
    return rounded if math.isfinite(rounded) else value


_DIGIT_PLACES = ("0", "#", "?")
_LOCALE_TAG = re.compile(r"\[\$-([0-9A-Fa-f]{1,8})\]")  # ([$-409]: the language a format is read in)
_SYSTEM_DATE_TIME = (0xF800, 0xF400)  # (the language tags showing a cell as the system's long date or time)
_COLOUR = re.compile(r"\[(?:black|blue|cyan|green|magenta|red|white|yellow|color[0-9]{1,2})\]", re.IGNORECASE)
_MINUS = ("-", "\\-", '"-"')  # a minus as a number format writes it: as it is, escaped or quoted


@functools.lru_cache(maxsize=256)
def _digits_shown(code: str, sign: int) -> tuple[int | None, bool] | None:
    """(How many decimals, whether a 0 is shown) of the number format `code` for a number of this `sign` (1, -1
    or 0) when its section for it (_number_section) shows the number as its digits alone: digit places (0 # ?),
    a decimal point, thousands separators between them, and what shows no character but space (a colour, a width
    of a space, a fill of spaces, a language tag); a whole number's fraction of ? places after a space (# ?/?
    shows 3 as "3" and spaces: no decimal, no 0); (None, True) for a section that is General (General;-General);
    None for any other (a percent, another fraction, an exponent, a date, text, a comma not between two digit
    places, which Excel reads as dividing by 1,000: 0, and 0,.0 show 12345 as 12 and 12.3)."""
    section = _number_section(code, sign)
    if section is None:
        return None
    if "".join(p for p in section if not _shows_no_character(p)).lower() == "general":
        return None, True
    whole = _whole_of_fraction(section)
    if whole is not None:
        digits = _digits_shown_by(whole)
        return (0, False) if digits is not None and digits[0] == 0 else None
    return _digits_shown_by(section)


def _digits_shown_by(section: list[str]) -> tuple[int, bool] | None:
    """_digits_shown's (decimals, whether a 0 is shown) of a section of digit places, or None."""
    if not all(p in _DIGIT_PLACES or p in ".," or _shows_no_character(p) for p in section):
        return None
    places = [p for p in section if p in _DIGIT_PLACES or p in ".,"]
    point = places.index(".") if "." in places else len(places)
    if not any(p in _DIGIT_PLACES for p in places) or places.count(".") > 1 or not _separators_alone(places, point):
        return None
    return len(places[point + 1:]), "0" in places


def _separators_alone(places: list[str], point: int) -> bool:
    """Whether each comma of a section's digit places (the decimal point at `point`) is a thousands separator:
    between two digit places before the point. Excel reads any other after the digits as dividing the number by
    1,000 (0, and 0,.0 show 12345 as 12 and 12.3)."""
    return all(0 < at < point - 1 and places[at - 1] in _DIGIT_PLACES and places[at + 1] in _DIGIT_PLACES
               for at, p in enumerate(places) if p == ",")


_FRACTION = re.compile(r"( )(\?+)/(\?+)")  # a fraction of ? places, after the whole number's digits and a space


def _whole_of_fraction(section: list[str]) -> list[str] | None:
    """The parts of a section before its fraction (# ?/? shows a whole number as its digits, then spaces where the
    fraction would be), when it shows a whole number's digits and a fraction of ? places alone after a space; else
    None (?/? shows 3 as 3/1)."""
    if "/" not in section:
        return None
    shown = [p for p in section if not p.startswith(("[", "_", "*"))]  # (a colour, a space's width, a fill)
    end = len(shown) - shown[::-1].index("/")
    while end < len(shown) and shown[end] == "?":
        end += 1
    found = _FRACTION.search("".join(p if len(p) == 1 else "\x00" for p in shown[:end]))
    if found is None or found.end() != end or not shown[:found.start()] or shown[end:] \
            or any(p in ("/", "?") for p in shown[:found.start()]):
        return None
    return shown[:found.start()]


def _number_section(code: str, sign: int) -> list[str] | None:
    """The parts of the section of the number format `code` that shows a number of this `sign` (1, -1 or 0): the
    first, or the third for zero, or a negative number's own section without the minus it writes before the
    digits (_unsigned); None for a format of conditions ([>100]), which chooses its sections otherwise, or a
    negative number's own section writing no minus there (0;0 shows -5 as 5, 0;(0) as (5))."""
    if (chosen := _sign_section(_format_sections(code), sign)) is None:
        return None
    section, own = chosen
    return _unsigned(section) if sign < 0 and own else section


def _unsigned(section: list[str]) -> list[str] | None:
    """A negative number's own section without the minus it writes first, before the digits (-0, [Red]-#,##0,
    Excel's accounting -* #,##0, -General): the rest shows the number's digits as a positive number's section
    does; None where it writes none there (0 or (0) show -5 as 5 or (5); 0- as 5-)."""
    for at, part in enumerate(section):
        if part in _MINUS:
            between = itertools.takewhile(lambda p: p not in _DIGIT_PLACES and p.lower() != "g", section[at + 1:])
            if all(p == "* " or p.startswith("[") for p in between):  # (a fill: the minus at the cell's edge)
                return section[:at] + section[at + 1:]
            return None
        if not _shows_no_character(part):
            return None
    return None


def _shows_no_character(part: str) -> bool:
    """Whether a number format's part (_FORMAT_PART) shows no character but a space: a colour ([Red],
    [Color10]), a language tag, a space's width (_x), a fill of spaces, a space quoted, escaped or as it is."""
    if part.startswith("["):
        return bool(_COLOUR.fullmatch(part)) or _language_alone(part)
    return part.startswith("_") or part in ("* ", " ", "\\ ", '" "')


def _language_alone(part: str) -> bool:
    """Whether a number format's part is a language tag ([$-409]) that changes no character a number shows: a
    language's number alone (at most FFFF), neither one naming digits or a calendar of its own above it
    ([$-D000000]0 shows 5 as the Thai digit ๕, as the built-in formats of _LANGUAGE_FORMATS do: a text field
    printed 5, exit 0) nor the system's long date or time, shown in place of the format ([$-F800])."""
    found = _LOCALE_TAG.fullmatch(part)
    return found is not None and int(found[1], 16) <= 0xFFFF and int(found[1], 16) not in _SYSTEM_DATE_TIME


# The characters a number format shows as they are, unquoted (Excel's list, but for /, a fraction's)
_FORMAT_LITERALS = frozenset("$-+():!^&'~{}<>= ")
_EXCEL_DIGITS = decimal.Context(prec=15, rounding=decimal.ROUND_HALF_UP)  # a number as Excel shows one: 15 digits
_WHOLE_DIGITS = decimal.Context(prec=40)  # (room for the whole digits of any number shown: 10**15 as a percent)
_LARGEST_SHOWN = 10**15  # (past it, Excel shows digits no float holds)


@functools.lru_cache(maxsize=256)
def _whole_number_format(code: str) -> tuple[str, int, int, str] | None:
    """(The text before the digits, the fewest digits shown, how many times it shows a percent, the text after)
    of a number format of one section that shows a number as whole digits, with literal text and % around them
    ("0%", "000", '"No. "0'); None for any other (a decimal point or a thousands separator, which a sheet shows
    as its reader's language writes them; a fraction, an exponent, a date, a colour, a condition, a width)."""
    sections = _format_sections(code)
    if len(sections) != 1:
        return None
    before: list[str] = []
    after: list[str] = []
    digits, percents = "", 0
    for part in sections[0]:
        if part in ("0", "#") and not after:
            digits += part
            continue
        if (literal := _format_literal(part)) is None:
            return None
        percents += part == "%"
        (after if digits else before).append(literal)
    if not re.fullmatch(r"#*0*", digits) or not digits or percents > 1:  # (0%% shows a number 10,000 times)
        return None
    return "".join(before), digits.count("0"), percents, "".join(after)


def _format_literal(part: str) -> str | None:
    """The text a number format's part (_FORMAT_PART) shows as it is: a quoted text, an escaped character, a
    character shown unquoted, or %; None for any other part."""
    if part.startswith('"') and part.endswith('"') and len(part) > 1:
        return part[1:-1]
    if part.startswith("\\") and len(part) == 2 or part in _FORMAT_LITERALS or part == "%":
        return part[-1]
    return None


def _shown_number(value: int | float, code: str) -> str | None:
    """The text a sheet shows for a number cell of the number format `code` when that is a whole number's
    (_whole_number_format: 50% of 0.5, 007 of 7, 2 of 1.5, rounded as Excel rounds, half away from zero), the
    same in any language; None where it is not, or where Excel's showing is not sure (-0%, past 15 digits)."""
    shape = _whole_number_format(code)
    if shape is None or not abs(value) < _LARGEST_SHOWN:
        return None
    before, fewest, percents, after = shape
    # (at most 17 digits before the point)
    scaled = _WHOLE_DIGITS.multiply(_EXCEL_DIGITS.plus(decimal.Decimal(repr(value))), 100**percents)
    whole = int(scaled.quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP, context=_WHOLE_DIGITS))
    if whole == 0 and scaled < 0:
        return None
    digits = str(abs(whole)).lstrip("0").zfill(fewest)
    text = "-" * (whole < 0) + before + digits + after
    return text if text.strip() else None


def _scalar(text: str, mark: Mark) -> int | float | str:
    """A number, else the text (the schema check then says what was expected); LoadError at `mark` for a number
    written in more characters than a YAML file's number may be (number_too_long): a whole number of 5,000 digits
    was said to be text, and 1 written with 4,400 zeros and .0e-4400 read as 1, where the same in YAML is refused."""
    for kind, pattern in ((int, _INT), (float, _FLOAT)):
        if not pattern.fullmatch(text):
            continue
        if len(text) > MAX_NUMBER_DIGITS:
            raise number_too_long(mark)
        value = kind(text)
        if too_close_to_zero(value, text):
            raise LoadError(closer_to_zero(shown(text)), mark)
        if value == value and value not in (float("inf"), float("-inf")):  # no NaN or infinity
            return value
    return text


def _yaml_value(text: str, mark: Mark) -> tuple[Any, int]:
    """(The value of a cell's YAML flow text, how many values it holds with its aliases expanded)."""
    try:
        return counted_load(text, mark.file)
    except LoadError as e:
        raise LoadError(f"this cell holds YAML flow text such as [a, b] or {{key: 1}}: {e.message}", mark) from None


def _remarked(value: Any, mark: Mark) -> Any:
    """A value parsed from one cell, every part of it marked at that cell."""
    if isinstance(value, Record):
        return Record({k: _remarked(v, mark) for k, v in value.items()}, {k: mark for k in value},
                      {k: mark for k in value}, mark)
    if isinstance(value, list):
        return MarkedList([_remarked(v, mark) for v in value], [mark] * len(value), mark)
    return value


# -- writing -------------------------------------------------------------------------------------------------
def columns(items: list[Any], schema: Schema) -> list[Any]:
    """The header: the schema's fields in their order (those any item uses, or all of them for a table of no item,
    whose spreadsheet then names them: its CSV had a header naming none, refused when read), then any other keys."""
    if not items:
        return list(schema.fields)
    used = list(dict.fromkeys(k for it in items for k in it))
    return [n for n in schema.fields if n in used] + [k for k in used if k not in schema.fields]


# libyaml's emitter where PyYAML has it, as load.py reads with its parser: PyYAML's own, in Python, took 23 s to write
# a table of 3,000 texts of 3,000 characters (9 MB) as YAML
_SafeDumper: type[yaml.SafeDumper] | type[yaml.CSafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Dumper(_SafeDumper):  # type: ignore[valid-type,misc]  # (either base: same representers)
    """PyYAML's safe dumper, but a text holding a character YAML reads as a line's end (U+0085, U+2028, U+2029)
    is written double-quoted, where it is escaped (\\N, \\L, \\P): written as it is, the YAML file was one
    pnp refuses (or a cell's flow text read back with a line break changed), from a sheet that validated."""

    def resolve(self, kind: Any, value: Any, implicit: tuple[bool, bool]) -> Any:
        """The tag the text `value` would be read as, which decides whether it is quoted: found from the
        loader's shortened input (see resolver_input), as a base-60 number of millions of parts cost PyYAML
        1.1 GB and 11 s to write as a cell."""
        if kind is yaml.ScalarNode and isinstance(value, str):
            given = resolver_input(value)
            if given is None:
                return self.DEFAULT_SCALAR_TAG
            value = given
        return super().resolve(kind, value, implicit)


def _text_written(dumper: Any, text: str) -> yaml.ScalarNode:
    style = '"' if UNSEEN_LINE_BREAK.search(text) else None  # (written as it is, pnp refuses to read it back)
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_Dumper.add_representer(str, _text_written)


def cell_text(value: object) -> str:
    """A value as one cell's text: lists and mappings as YAML flow text."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return yaml.dump(value, Dumper=_Dumper, default_flow_style=True, allow_unicode=True, sort_keys=False,
                         width=1_000_000).strip()
    return str(value)


def shown_text(value: object) -> str:
    """A workbook cell's value as a text field prints it: as the sheet shows it, a true/false cell TRUE or
    FALSE (cell_text's true, YAML's word, printed where the sheet showed TRUE)."""
    return cell_text(value).upper() if isinstance(value, bool) else cell_text(value)


def write_csv(items: list[Any], schema: Schema, ids: Mapping[Any, Field | None] | None = None) -> bytes:
    """The table as CSV, a row a line ending in \\n. A cell holding a line break of either kind (\\r or \\n)
    is quoted: Python's writer quotes only the characters of its line ending, and a bare \\r left unquoted
    was read back as the end of a row (an item more, a text cut short, exit 0)."""
    rows = [plain(it) for it in items]
    names = _sheet_columns(items, rows, schema)
    given_back = _cells_given_back(items, rows, names, schema, lambda value, field: cell_text(value), ids or {})
    if not names:  # (a line of no cell is a header naming no field, refused when read: a table of no item and
        return b""  # no field is a file of no row)
    written = [[_csv_text(cell) if isinstance(row.get(name), str) else cell for name, cell in zip(names, cells)]
               for row, cells in zip(rows, given_back)]
    names_written = [_csv_text(str(name)) for name in names]
    _csv_cells_readable(items, written, names, schema)
    out, line = io.StringIO(newline=""), io.StringIO(newline="")
    writer = csv.writer(line, lineterminator="\r\n")  # both characters quoted wherever they are in a cell
    # a header cell holding another delimiter (a field named 'a;b;c') is quoted, as _delimiter reads the first line,
    # and so is one a first line naming the delimiter would be taken for or refused as ('sep=|', 'sep=ab'), and a
    # first field named beginning 'ID', which Excel takes for the mark of a SYLK file and refuses to open as CSV
    # ("SYLK: File format is not valid"; SheetJS quotes it so too)
    quoted = (any(set(str(n)) & set(_DELIMITERS) for n in names) or str(names[0])[:4].lower() == "sep="
              or str(names[0]).startswith("ID"))
    header = csv.writer(line, lineterminator="\r\n", quoting=csv.QUOTE_ALL if quoted else csv.QUOTE_MINIMAL)
    for row, cells in enumerate([names_written, *written]):
        line.seek(0)
        line.truncate()
        (writer if row else header).writerow(cells)
        out.write(line.getvalue().removesuffix("\r\n") + "\n")
    # the reader takes a first U+FEFF for the byte order mark Excel writes: one is written before a header
    # beginning with that character (a field so named was read back without it, and refused as missing), and
    # before a file holding any character past ASCII, as Excel's "CSV UTF-8" writes it: Excel opens a CSV without
    # it in the system's own code page ('Café' showed 'CafÃ©', and saved back so, printed so, exit 0)
    text = out.getvalue()
    return ("\ufeff" * (text.startswith("\ufeff") or not text.isascii()) + text).encode("utf-8")


# A CSV cell a spreadsheet program would run as a formula (OWASP's characters: =, +, -, @, a tab or a carriage
# return first), after any quotes OWASP's escape put before it; the escape pnp's reader takes off again
_FORMULA_LIKE = re.compile(r"'*[=+\-@\t\r]")


def _csv_text(text: str) -> str:
    """A text as a CSV cell writes it: after a quote, as OWASP asks, when a spreadsheet would take it for a formula
    (a table's '=HYPERLINK(...)' ran as one in the CSV pnp wrote, when opened in Excel); _csv_cell reads it back."""
    return "'" + text if _FORMULA_LIKE.match(text) else text


def _csv_cell(text: str) -> str:
    """A CSV cell's text, without the quote _csv_text (or a spreadsheet's user, as OWASP asks) put before a text
    a spreadsheet would take for a formula."""
    return text[1:] if text[:1] == "'" and _FORMULA_LIKE.match(text, 1) else text


def _sheet_columns(items: list[Any], rows: list[dict[Any, Any]], schema: Schema) -> list[Any]:
    """The header of the table's spreadsheet (columns()); DataError when its rows would hold more columns or cells
    than a sheet pnp reads (a table of 1,001 fields was written, and its sheet refused when read back)."""
    names = columns(rows, schema)
    if len(names) > MAX_COLUMNS or len(names) * (len(rows) + 1) > MAX_CELLS:
        said = (f"{len(names):,} columns, and a sheet's row holds at most {MAX_COLUMNS:,}" if len(names) > MAX_COLUMNS
                else f"{len(names) * (len(rows) + 1):,} cells, and a sheet holds at most {MAX_CELLS:,}")
        raise DataError(f"as a spreadsheet, the table would be {said} here: keep it in YAML", getattr(items, "mark", None))
    _check_header_read_back(items, names, schema)
    return names


def _check_header_read_back(items: list[Any], names: list[Any], schema: Schema) -> None:
    """DataError at the first of the columns `names` whose header cell, written as its text, is read back (_header)
    as no name or as another field's: a field named '' or ' ' (a blank header cell: every value under it was then
    refused as 'a value in a column without a name'), or two fields whose names are one text (1 and '1', true and
    'True': 'column appears twice'), each written with exit 0 and its file then refused."""
    by_text = _fields_by_text(schema)
    for name in names:
        text = _header_text(str(name), by_text)
        back = None if text is None else by_text.get(text, text)
        if type(back) is type(name) and back == name:
            continue
        said = ("a blank header cell, which names no column" if back is None else
                f"the header cell {shown(text)}, which names the field {shown(back)} ({type_name(back)})")
        raise DataError(f"field {shown(name)} ({type_name(name)}) would be written as {said}, and its column read "
                        "back so: give each field a name of its own as text", _field_mark(items, name, schema))


def _field_mark(items: list[Any], name: Any, schema: Schema) -> Mark | None:
    """Where the column `name` is named: its field in game.yaml, else the first of the `items` giving it."""
    field = schema.fields.get(name)
    return getattr(field.spec, "mark", None) if field is not None else next(
        (item.key_mark(name) for item in items if isinstance(item, Record) and name in item), None)


def _csv_cells_readable(items: list[Any], written: list[list[Any]], names: list[Any], schema: Schema) -> None:
    """DataError at the first cell `written`, or header cell naming a field of `names`, longer than Python's CSV
    reader reads (its field_size_limit): a text, or a field's name, of 140,000 characters was written with exit 0,
    and the file then refused."""
    most = csv.field_size_limit()  # (the reader's, in this process)
    if long := next((name for name in names if len(_csv_text(str(name))) > most), None):  # (as written)
        raise DataError(f"field {shown(long)} is named in {len(_csv_text(str(long))):,} characters, its header cell; a CSV cell "
                        f"holds at most {most:,}: give it a shorter name", _field_mark(items, long, schema))
    for item, cells in zip(items, written):
        for name, text in zip(names, cells):
            if len(text) > most:
                raise DataError(f"{shown(name)} is {len(text):,} characters as a cell; a CSV cell holds at most {most:,} "
                                "(keep the table in YAML)", item.mark_of(name) if isinstance(item, Record) else None)


def _cells_given_back(items: list[Any], rows: list[dict[Any, Any]], names: list[Any], schema: Schema,
                      written: Callable[[object, Field | None], Any], ids: Mapping[Any, Field | None]) -> list[list[Any]]:
    """The cells `written` for each row's values, in the order of `names`; DataError at the first item a row cannot give back (one of no value), or the first value a cell cannot
    give back (`written`: the cell written for a value of a field, a CSV's text or a workbook's typed cell;
    `ids`: each table's id field, by which a ref cell is read): a text of no characters or only spaces that its
    field would not give back (its cell is blank, and a blank cell is read as a value left out: the field's
    default, or missing; converted without a word, a required field's '' validated in YAML and was 'missing'
    in the spreadsheet), a number that is not finite (a workbook wrote .inf as an empty number cell, read
    back as left out; a CSV's 'inf' came back as text), a text no cell may hold, as the reader refuses such a
    cell; or any other value its cell is read back otherwise (_round_trip_problem). A field given as null (`text:`
    with nothing after it) alike: its blank cell was read as the field left out, and a table YAML refused ('expected
    text, got nothing') was converted to one that validated, its default printed."""
    table = []
    for item, row in zip(items, rows):
        cells = [written(row.get(name), schema.fields.get(name)) for name in names]
        for name, cell in zip(names, cells):
            if problem := (_NULL_SAID.format(name=shown(name)) if name in row and row[name] is None
                           else _value_problem(name, row.get(name), schema.fields.get(name), cell, ids)):
                raise DataError(problem, item.mark_of(name) if isinstance(item, Record) else None)
        if all(_blank(cell) for cell in cells):  # (every field left out: `- {}`)
            raise DataError("this item gives no value, and a spreadsheet's row of blank cells is no item (it is "
                            "left out when read): give it a value, such as a field's default",
                            item.mark if isinstance(item, Record) else None)
        table.append(cells)
    return table


_NULL_SAID = ("{name} is given as null (nothing), which a spreadsheet's blank cell cannot give back (it is read as the "
              "field left out); leave the field out or give it a value")


def _value_problem(name: Any, value: object, field: Field | None, cell: object,
                   ids: Mapping[Any, Field | None]) -> str | None:
    """Why the `cell` written for a `field`'s value does not give it back, or None (_cells_given_back)."""
    if value is None:
        return None
    if isinstance(value, str) and _blank(value):
        if field is not None and value == field.default:
            return None
        said = "no characters" if not value else "only spaces"
        return (f"{shown(name)} is a text of {said}, which a spreadsheet's blank cell cannot give back (it is read as a "
                "value left out); leave the field out or give it text")
    if isinstance(value, float) and not math.isfinite(value):
        return f"{shown(name)} is {shown(value)}, not a finite number, which no spreadsheet cell gives back"
    if isinstance(value, str) and (problem := _text_problem(value)):  # (written, a cell pnp refuses to read, or
        return f"{shown(name)}: {problem}"  # openpyxl refuses to write: an internal error)
    return _round_trip_problem(name, value, field, cell, ids)


def _round_trip_problem(name: Any, value: object, field: Field | None, cell: object,
                        ids: Mapping[Any, Field | None]) -> str | None:
    """Why the `cell` written for `value` reads back, as its `field` reads it, as another value, or None. A
    column game.yaml gives no type (a derived field typed by hand) is read as a number when it looks like one,
    else as its text, trimmed (a typed-in derived '10' came back as 10, true as 'true', ' a' as 'a'); a field of
    `any` or `scalar` type, or a value not of its field's type, alike (a list in an `any` field came back as
    its text, a text '12' as the number 12, an int field's '3' as 3): each converted with exit 0."""
    try:
        back = plain(_cell(cell if isinstance(cell, str) else _plain_number(cell), _read_as(field, ids), Mark(""))[0])
    except LoadError as e:
        return f"{shown(name)} is {shown(value)}, whose cell would not be read back: {e.message}"
    if same(back, value):
        return None
    why = ("the table's fields do not say its type; leave it out (a derived field is computed)" if field is None
           else f"its field ({field.name}) reads the cell so: keep such a value in YAML, or give it its field's type")
    return (f"{shown(name)} is {shown(value)} ({type_name(value)}), which its cell would give back as {shown(back)} "
            f"({type_name(back)}): {why}")


def write_xlsx(items: list[Any], schema: Schema, title: str, ids: Mapping[Any, Field | None] | None = None) -> bytes:
    """A workbook of one sheet; numbers and true/false stay typed, so Excel can sort and sum them."""
    import openpyxl
    from openpyxl.styles import Font
    from openpyxl.worksheet.worksheet import Worksheet

    rows = [plain(it) for it in items]
    names = _sheet_columns(items, rows, schema)
    # the reading work of the cells alone, before each is checked, written and saved: a table of 3,500 items of 41
    # fields was checked cell by cell and made a workbook (6 s) only to be refused as more than pnp reads
    # (a lower bound: a blank text may be written as a blank cell)
    _refuse_reading_work(_cells_work([names, *([None if _blank(row.get(name)) else row.get(name) for name in names]
                                               for row in rows)]), items)
    written = _cells_given_back(items, rows, names, schema, _typed, ids or {})
    book = openpyxl.Workbook()
    ws = book.active
    assert isinstance(ws, Worksheet)  # a new workbook's one sheet
    ws.title = sheet_title(title)
    for col, name in enumerate(names, start=1):
        _text_cell(ws, 1, col, str(name), getattr(items, "mark", None)).font = Font(bold=True)  # (read by _records)
    ws.freeze_panes = "A2"
    for line, (item, cells) in enumerate(zip(items, written), start=2):
        for col, (name, value) in enumerate(zip(names, cells), start=1):
            if isinstance(value, str):
                _text_cell(ws, line, col, value, item.mark_of(name) if isinstance(item, Record) else None)
            elif value is not None:
                ws.cell(line, col, value)
    _enum_dropdowns(book, ws, names, schema, len(rows) + 1)
    # the same data gives the same file: no "created now" in the workbook's properties
    book.properties.created = book.properties.modified = datetime.datetime(2000, 1, 1)
    made = _saved(book)
    try:  # (a table of 3,000 texts of 3,000 characters was written as a workbook pnp then refused to read)
        check_parts(zipfile.ZipFile(io.BytesIO(made)), title)
    except LoadError as e:
        raise DataError(f"the table as a workbook is more than pnp reads ({e.message}): keep it in YAML or CSV",
                        getattr(items, "mark", None)) from None
    # (13,000 items of 8 numbers were written, and the workbook then refused as more reading than a game's allowance)
    _refuse_reading_work(_reading_work(made, [names, *written]), items)
    return made


def _refuse_reading_work(work: int, items: list[Any]) -> None:
    """DataError at the table when reading its workbook counts `work` cells, more than a game's allowance."""
    if work > MAX_GAME_CELLS:
        raise DataError(f"the table as a workbook is more than pnp reads (reading it counts as {work:,} cells, and a "
                        f"game's spreadsheets count at most {MAX_GAME_CELLS:,} together): keep it in YAML or CSV",
                        getattr(items, "mark", None))


def _reading_work(made: bytes, rows: list[list[Any]]) -> int:
    """What reading the sheet of the workbook `made`, of these `rows` of written cells (None where blank), counts
    against the game's allowance of cells (_spend_game_work, _check_row_size)."""
    with zipfile.ZipFile(io.BytesIO(made)) as archive:
        xml = archive.getinfo("xl/worksheets/sheet1.xml").file_size
    return xml // _XML_BYTES_PER_CELL + _cells_work(rows)


def _cells_work(rows: Iterable[list[Any]]) -> int:
    """What the cells of `rows` (None where blank) count against the game's allowance of cells when read, their
    sheet's XML aside."""
    held = ([i for i, cell in enumerate(row, start=1) if cell is not None] for row in rows)
    return sum(_ROW_WORK + (_PARSED_CELL_WORK * len(at) + at[-1] if at else 0) for at in held)


_FIXED_TIME = (2000, 1, 1, 0, 0, 0)


def _saved(book: Any) -> bytes:
    """The workbook's bytes, the same for the same data: book.save() stamps the time of saving as its
    modified date, and each entry of the zip bears the time it was written (two converts of one table made
    two different files, a change in version control each time) and the system it was made on (_fixed_entry)."""
    from openpyxl.writer.excel import ExcelWriter

    made = io.BytesIO()
    with zipfile.ZipFile(made, "w", zipfile.ZIP_DEFLATED, allowZip64=True) as archive:
        ExcelWriter(book, archive).save()  # what book.save() does, but for its "modified now"
    fixed = io.BytesIO()
    with zipfile.ZipFile(made) as written, zipfile.ZipFile(fixed, "w", zipfile.ZIP_DEFLATED) as out:
        for entry in written.infolist():
            out.writestr(_fixed_entry(entry.filename), written.read(entry), zipfile.ZIP_DEFLATED)
    return fixed.getvalue()


def _fixed_entry(name: str) -> zipfile.ZipInfo:
    """A zip entry named `name`, the same on any machine: of _FIXED_TIME, made on MS-DOS as Excel's are (a
    ZipInfo says the system Python runs on, Unix or Windows: a table converted on Windows was another file)."""
    entry = zipfile.ZipInfo(name, _FIXED_TIME)
    entry.create_system = 0
    return entry


def sheet_title(table: str) -> str:
    """The table's name as a sheet's name, which is only shown (a table reads its file's first sheet or the one
    `sheet:` names): without the characters Excel refuses in one (a table named 'pro:be' was a traceback), at
    most 31 characters as Excel counts them (_cut), not beginning or ending with a quote, and not
    'History', a name Excel keeps for itself."""
    title = _cut(_NOT_PRINTABLE.sub("_", re.sub(r"[\[\]:*?/\\]", "_", table)), 31).strip("'") or "items"
    return title + "_" if _sheet_key(title) == _sheet_key("History") else title


def _cut(text: str, most: int) -> str:
    """`text` cut to `most` UTF-16 code units, as Excel counts a text's length (a sheet's name holds 31, a
    drop-down's error message 255), never inside a character: a character past U+FFFF (an emoji) counts two,
    and a sheet named in 31 emoji was written, a workbook Excel repairs on opening."""
    units = 0
    for index, char in enumerate(text):
        units += 1 + (ord(char) > 0xFFFF)
        if units > most:
            return text[:index]
    return text


LISTS_SHEET = "pnp lists"  # a hidden sheet holding each enum column's values, for its drop-down
# The values that hidden sheet holds at most, each enum's once: an enum of 90,000 values read by 8 fields was
# written 720,000 cells long (78 s, 345 MB) before the workbook was refused. A longer list offers no drop-down
MAX_LISTED_VALUES = 10_000


def _enum_dropdowns(book: Any, ws: Any, names: list[Any], schema: Schema, last_row: int) -> None:
    """Each enum column offers its values in a drop-down (and Excel refuses others as they are typed), down to
    a few hundred rows below the data so that new items get it too. The values sit in a hidden sheet, a column
    for each list of values (an inline list cannot hold a comma and stops at 255 characters), MAX_LISTED_VALUES
    of them at most: a column whose values would pass it is offered none."""
    from openpyxl.utils import get_column_letter
    from openpyxl.worksheet.datavalidation import DataValidation

    enums = [(col, typed) for col, n in enumerate(names, start=1) if isinstance(typed := schema.fields.get(n), Enum)]
    lists: Any = None
    listed: dict[tuple[str, ...], str] = {}  # each list of values written (by their reprs: 1, '1', True) -> its range
    for col, field in enums:
        values = tuple(map(repr, field.values))
        if values not in listed:
            if sum(map(len, listed)) + len(values) > MAX_LISTED_VALUES:
                continue
            lists = lists or _lists_sheet(book)
            listed[values] = _listed(lists, len(listed) + 1, field)
        # lists.title: a table named as LISTS_SHEET took that name first, and the drop-downs offered its own column
        rule = DataValidation(type="list", formula1=listed[values], allow_blank=not field.required,
                              showErrorMessage=True, errorTitle="Not one of the values",
                              error=_cut(f"{names[col - 1]} is one of: {', '.join(map(_as_cell_shows, field.values))}", 255))
        column = get_column_letter(col)
        rule.add(f"{column}2:{column}{last_row + 500}")
        ws.add_data_validation(rule)


def _as_cell_shows(value: object) -> str:
    """An enum's value in the words of the sheet whose cell holds it, for Excel's message on a value typed outside
    the list: true as TRUE (Python's True was shown, a spelling neither the sheet nor the YAML has), a number as
    a spreadsheet spells it (1E+20)."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    return excel_spelt(str(value), value) if isinstance(value, (int, float)) else str(value)


def _lists_sheet(book: Any) -> Any:
    """The hidden sheet of the drop-downs' values, made."""
    taken, title = {_sheet_key(name) for name in book.sheetnames}, LISTS_SHEET
    while _sheet_key(title) in taken:  # (openpyxl renames one only when lower() matches: 'pnp liſts' stood,
        title += "+"  # and pnp refused the workbook it wrote for its two sheets of one name)
    lists = book.create_sheet(title)
    lists.sheet_state = "hidden"
    return lists


def _listed(lists: Any, n: int, field: Enum) -> str:
    """The range of column `n` of the sheet `lists`, written with the enum `field`'s values."""
    from openpyxl.utils import get_column_letter

    letter = get_column_letter(n)
    for row, value in enumerate(field.values, start=1):
        # each written as the data's cell of that value is (_typed), or Excel refuses it: 2 as a number, a number
        # no number cell gives back as its text (0.30000000000000004 was offered as 0.3, then refused); and a
        # text escaped as the data's ('_x0041_' was offered as 'A', then refused)
        if isinstance(cell := _typed(value, field), str):
            _text_cell(lists, row, n, cell, _spec_mark(field))
        else:
            lists.cell(row, n, cell)
    return f"'{lists.title}'!${letter}$1:${letter}${len(field.values)}"


def _spec_mark(field: Field) -> Mark | None:
    """Where game.yaml gives a field's values (its `values:` or `enum:`), or None."""
    mark_of = getattr(field.spec, "mark_of", None)
    return mark_of("values" if "values" in field.spec else "enum") if mark_of else None


def _text_cell(ws: Any, row: int, col: int, text: str, mark: Mark | None) -> Any:
    """A cell holding `text` as text: openpyxl would store text beginning with '=' as a live formula and
    '#N/A' as an error; the quote prefix keeps Excel from reading =, +, - or @ as a formula when the
    cell is edited."""
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    # counted as Excel counts, in UTF-16 units (an emoji two: 20,000 emoji were written, a cell Excel cuts short)
    if (units := excel_length(written := _escaped(text))) > MAX_CELL_CHARS:
        counted = f" ({units:,} as a workbook counts them, a character past U+FFFF two)" * (units != len(written))
        raise DataError(f"text of {len(written):,} characters{counted}; a workbook cell holds at most "
                        f"{MAX_CELL_CHARS:,}", mark)
    if bad := ILLEGAL_CHARACTERS_RE.search(text):
        raise DataError(f"text holds the control character U+{ord(bad.group()):04X}, which a workbook cannot "
                        "store", mark)
    if problem := _text_problem(text):  # (what a cell read may not hold: U+FFFE in a field's name, which openpyxl
        raise DataError(f"{shown(text)}: {problem}", mark)  # let by, failed writing its XML: "internal error")
    cell = ws.cell(row, col, written)
    cell.data_type = "s"
    if text.startswith(_FORMULA_STARTS):
        cell.quotePrefix = True
    return cell


def _typed(value: object, field: Field | None) -> str | int | float | None:
    if value is None:
        return None
    if isinstance(field, Str):
        return cell_text(value)
    if isinstance(value, bool):  # a true/false cell (its text 'true' was read back as text where no field types it)
        return value
    if isinstance(value, (int, float)) and _read_back(value) == (type(value), value):
        return value
    # a number a workbook cell cannot give back as it is is kept as its text, read back by its field's type:
    # openpyxl writes 16 digits, so 0.30000000000000004 came back 0.3 and 10**23 as 9.999999999999999e+22; and
    # a cell's whole number is read as an int below 2**53 only, so 2**63 came back a float (an int field's
    # error) and 3.0 or -0.0 an int (printed 3 and 0), exit 0; and a cell under General is read in 15 significant
    # digits, as the sheet shows it (_number_shown), so 0.1234567890123456 would come back 0.123456789012346
    return cell_text(value)


def _read_back(value: int | float) -> tuple[type, object] | None:
    """(The type, the value) a number cell written with `value`, under General, is read back as; None for a whole
    number past the largest float, which no number cell holds (10**400 in a number field, which validated, ended
    convert --to xlsx as a bug in pnp: OverflowError)."""
    try:
        written = _WORKBOOK_NUMBER % value
    except OverflowError:
        return None
    read = _plain_number(_in_excel_digits(float(written)))
    return type(read), read


_WORKBOOK_NUMBER = "%.16g"  # how openpyxl writes a number cell's value


def write_yaml(items: list[Any], schema: Schema) -> bytes:
    """The table as YAML; DataError when the names of its fields, which each item repeats where a sheet's header
    names them once, would make a file larger than pnp reads (a CSV of 20,000 rows under a field named in 100,000
    characters ran out of memory writing 2 GB)."""
    rows = [plain(it) for it in items]
    names = columns(rows, schema)
    if (repeated := sum(len(str(name)) for row in rows for name in row)) > MAX_FILE_BYTES:
        raise DataError(f"written as YAML, the table's field names alone would take {repeated / 2**20:,.0f} MB (each "
                        f"item repeats them), and pnp reads a file of at most {MAX_FILE_BYTES // 2**20} MB: give its "
                        "fields shorter names", getattr(items, "mark", None))
    ordered = [{n: row[n] for n in names if n in row} for row in rows]
    return yaml.dump(ordered, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=110).encode("utf-8")
