"""Tables kept in spreadsheets: a .csv or .xlsx file is read into the same marked items a YAML file gives,
one row per item and one column per field, and any table can be written back out in any of the three
formats. Cells are read by their field's type (a text field keeps '007' as text, an int field reads '3' as
3), so YAML -> CSV/XLSX -> YAML gives back the same data. A list, map or record field holds its value as
YAML flow text in one cell, e.g. [a, b] or {plants: 2}. Every value is marked with its file, row and
column (and the sheet, for a workbook), so a message points at the cell."""

import csv
import io
import zipfile

import yaml

from ..errors import LoadError
from ..project import read_project_file
from ..report import Mark
from .load import MAX_EXPANDED_VALUES, MAX_FILE_BYTES, MarkedList, Record, check_file, load_text, plain
from .schema import Bool, Enum, List, Map, Nested, Str

SPREADSHEETS = (".csv", ".xlsx")
MAX_UNZIPPED_BYTES = 200 * 1024 * 1024  # a workbook is a zip: refuse one that inflates past this (a zip bomb)
MAX_COLUMNS = 1000


# -- reading -------------------------------------------------------------------------------------------------
def read_table(path, shown, schema, sheet=None):
    """The rows of a .csv or .xlsx file as a MarkedList of Records; raises LoadError (with the cell)."""
    check_file(path, shown)
    if path.suffix.lower() == ".csv":
        rows, where = _csv_rows(path, shown), shown
    else:
        rows, where = _xlsx_rows(path, shown, sheet)
    return _records(rows, where, schema)


def _csv_rows(path, shown):
    """(line, [cell text]) per row; the line is where the row starts (a quoted cell may span lines)."""
    try:
        text = read_project_file(path, MAX_FILE_BYTES, Mark(shown)).decode("utf-8-sig")  # Excel writes a BOM
    except UnicodeDecodeError as e:
        raise LoadError(f"not UTF-8 text ({e.reason} at byte {e.start}); save the sheet as CSV UTF-8",
                        Mark(shown)) from None
    except OSError as e:
        raise LoadError(f"cannot read: {e.strerror}", Mark(shown)) from None
    first = text.split("\n", 1)[0]
    delimiter = max((",", ";", "\t"), key=first.count)  # a European Excel saves CSV with semicolons
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    rows, line = [], 1
    try:
        for cells in reader:
            rows.append((line, cells))
            line = reader.line_num + 1
    except csv.Error as e:
        raise LoadError(f"malformed CSV: {e}", Mark(shown, reader.line_num or line, 1)) from None
    return rows


def _xlsx_rows(path, shown, sheet):
    """(row number, [cell value]) per row of one sheet (the first unless `sheet` names one), and the name
    messages use for it: file[sheet]."""
    import openpyxl  # only workbooks need it: CSV and YAML games load without it

    try:
        with zipfile.ZipFile(path) as z:
            if sum(info.file_size for info in z.infolist()) > MAX_UNZIPPED_BYTES:
                raise LoadError(f"workbook unpacks to more than {MAX_UNZIPPED_BYTES // (1024 * 1024)} MB",
                                Mark(shown))
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except LoadError:
        raise
    except Exception as e:  # noqa: BLE001 - zip, XML and openpyxl errors alike: a file Excel did not write
        raise LoadError(f"not a readable .xlsx workbook ({type(e).__name__}: {e})", Mark(shown)) from None
    try:
        if sheet is None:
            ws = book.worksheets[0]
        elif sheet in book.sheetnames:
            ws = book[sheet]
        else:
            raise LoadError(f"workbook has no sheet '{sheet}'; its sheets: {', '.join(book.sheetnames)}",
                            Mark(shown))
        where = f"{shown}[{ws.title}]"
        if (ws.max_column or 0) > MAX_COLUMNS or (ws.max_row or 0) > MAX_EXPANDED_VALUES // 10:
            raise LoadError(f"sheet is too large ({ws.max_row} rows x {ws.max_column} columns)", Mark(where))
        rows = [(n, list(values)) for n, values in enumerate(ws.iter_rows(values_only=True), start=1)]
    except LoadError:
        raise
    except Exception as e:  # noqa: BLE001 - a damaged sheet
        raise LoadError(f"not a readable .xlsx workbook ({type(e).__name__}: {e})", Mark(shown)) from None
    finally:
        book.close()
    return rows, where


def _blank(value):
    return value is None or (isinstance(value, str) and not value.strip())


def _records(rows, where, schema):
    """The header row names the fields; every later row that is not blank is one item."""
    items = MarkedList(mark=Mark(where, 1, 1))
    if not rows:
        return items
    line, header = rows[0]
    names = _header(header, where, line)
    values = 0
    for line, cells in rows[1:]:
        if all(_blank(c) for c in cells):
            continue  # spreadsheets end in empty rows
        data, marks, key_marks = {}, {}, {}
        for col, cell in enumerate(cells, start=1):
            if _blank(cell):
                continue
            mark = Mark(where, line, col)
            if col > len(names) or names[col - 1] is None:
                raise LoadError("a value in a column without a name in the header row", mark)
            name = names[col - 1]
            data[name], marks[name], key_marks[name] = _cell(cell, schema.fields.get(name), mark), mark, \
                Mark(where, 1, col)
            values += 1
        if values > MAX_EXPANDED_VALUES:
            raise LoadError(f"more than {MAX_EXPANDED_VALUES:,} values", Mark(where, line, 1))
        items.append(Record._made(data, marks, key_marks, Mark(where, line, 1)))
        items.marks.append(Mark(where, line, 1))
    return items


def _header(header, where, line):
    names, seen = [], {}
    for col, cell in enumerate(header, start=1):
        if _blank(cell):
            names.append(None)
            continue
        name = str(cell).strip()
        if name in seen:
            raise LoadError(f"column '{name}' appears twice in the header row (first in column {seen[name]})",
                            Mark(where, line, col))
        seen[name] = col
        names.append(name)
    if not seen:
        raise LoadError("the first row names the fields (id, name, ...); it is empty", Mark(where, line, 1))
    return names


def _plain_number(value):
    """A workbook's 3.0 is the whole number 3 (Excel keeps every number as a float)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def _cell(value, field, mark):
    """A cell's value as its field's type reads it; what does not read is kept as written, so the schema
    check reports it at this cell."""
    value = _plain_number(value)
    if isinstance(field, Str):  # str, text, id, icon: the cell as written
        return cell_text(value)
    if not isinstance(value, str):
        return value  # a workbook's number or true/false, already typed
    text = value.strip()
    if isinstance(field, Bool):
        return {"true": True, "false": False, "yes": True, "no": False}.get(text.lower(), value)
    if isinstance(field, Enum):
        return next((v for v in field.values if str(v) == text), value)
    if not isinstance(field, (List, Map, Nested)):  # a number, or a field the table does not declare
        return _scalar(text)
    return _remarked(_yaml_value(text, mark), mark)


def _scalar(text):
    """A number, else the text (the schema check then says what was expected)."""
    for kind in (int, float):
        try:
            value = kind(text)
        except ValueError:
            continue
        if value == value and value not in (float("inf"), float("-inf")):  # no NaN or infinity
            return value
    return text


def _yaml_value(text, mark):
    try:
        return load_text(text, mark.file)
    except LoadError as e:
        raise LoadError(f"this cell holds YAML flow text such as [a, b] or {{key: 1}}: {e.message}", mark) from None


def _remarked(value, mark):
    """A value parsed from one cell, every part of it marked at that cell."""
    if isinstance(value, Record):
        return Record({k: _remarked(v, mark) for k, v in value.items()}, {k: mark for k in value},
                      {k: mark for k in value}, mark)
    if isinstance(value, list):
        return MarkedList([_remarked(v, mark) for v in value], [mark] * len(value), mark)
    return value


# -- writing -------------------------------------------------------------------------------------------------
def columns(items, schema):
    """The header: the schema's fields in their order (those any item uses), then any other keys."""
    used = list(dict.fromkeys(k for it in items for k in it))
    return [n for n in schema.fields if n in used] + [k for k in used if k not in schema.fields]


def cell_text(value):
    """A value as one cell's text: lists and mappings as YAML flow text."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, sort_keys=False,
                              width=1_000_000).strip()
    return str(value)


def write_csv(items, schema):
    rows = [plain(it) for it in items]
    names = columns(rows, schema)
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(names)
    for row in rows:
        writer.writerow([cell_text(row.get(n)) for n in names])
    return out.getvalue().encode("utf-8")


def write_xlsx(items, schema, title):
    """A workbook of one sheet; numbers and true/false stay typed, so Excel can sort and sum them."""
    import datetime

    import openpyxl
    from openpyxl.styles import Font

    rows = [plain(it) for it in items]
    names = columns(rows, schema)
    book = openpyxl.Workbook()
    ws = book.active
    ws.title = title[:31]  # Excel's limit on a sheet's name
    ws.append(names)
    for cell in ws[1]:
        cell.font = Font(bold=True)
    ws.freeze_panes = "A2"
    for row in rows:
        ws.append([_typed(row.get(n), schema.fields.get(n)) for n in names])
    # the same data gives the same file: no "created now" in the workbook's properties
    book.properties.created = book.properties.modified = datetime.datetime(2000, 1, 1)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _typed(value, field):
    if value is None:
        return None
    if isinstance(field, Str):
        return cell_text(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    return cell_text(value)


def write_yaml(items, schema):
    rows = [plain(it) for it in items]
    names = columns(rows, schema)
    ordered = [{n: row[n] for n in names if n in row} for row in rows]
    return yaml.safe_dump(ordered, allow_unicode=True, sort_keys=False, width=110).encode("utf-8")
