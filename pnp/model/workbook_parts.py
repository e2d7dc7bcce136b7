"""What a table's file is (check_spreadsheet_format: a spreadsheet format pnp reads, a workbook or a text file
as its suffix says), and the checks a workbook passes before openpyxl reads a byte of it: an .xlsx file is a zip of XML parts, and
openpyxl reads some parts whole into objects and others at some speed, so each part's size, ratio, kind and count
of elements is bounded here, where a hostile file (a zip bomb, a million styles, a document type whose entities
expand) is refused by name rather than read for minutes. What a sheet's cells hold is checked as they are read
(spreadsheet.py)."""

import re
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

from ..errors import LoadError
from ..project import open_project_file
from ..report import Mark, named
from .load import MAX_FILE_BYTES, shown

# A workbook is a zip of XML parts. The sizes its directory states bound what zipfile inflates (it stops
# there and checks the CRC), so they are checked before openpyxl reads a byte: a zip bomb is refused
MAX_UNZIPPED_BYTES = 200 * 1024 * 1024  # all parts together, pictures included (openpyxl reads none)
# openpyxl parses XML at about 1.5 MB a second (a sheet, its shared strings): these keep a load to seconds
MAX_XML_PART_BYTES = 4 * 1024 * 1024
MAX_XML_BYTES = 16 * 1024 * 1024
MAX_PARTS = 10_000
MAX_RATIO = 100  # inflated / compressed size of a part over 1 MB; a real sheet's XML packs 5-20 times
# A number format's code, in characters (Excel takes at most 255): openpyxl tells a date format by a regular
# expression whose time grows with the square of the code's length (100,000 characters of '[' took 23 s)
MAX_FORMAT_CHARS = 1000
# ... and it does so for each cell style, reading each at some 100 a millisecond: the sum over the styles of
# their format's length squared, and the styles themselves, keep that to a second or two (a workbook has a
# few hundred styles; Excel allows 65,490)
MAX_FORMAT_WORK = 8_000_000
_FORMAT_NUMBER = re.compile(r"[0-9]{1,9}")  # a number format's number (numFmtId), as a workbook writes it
# What a style's attributes number (its number format, font, fill, border, the named style it is based on), each
# kept by openpyxl in an array of 32-bit numbers after its int(): 99999999999 was "OverflowError: signed integer
# is greater than maximum", and a '²' "TypeError: expected <class 'int'>", each naming no part
_STYLE_NUMBERS = ("numFmtId", "fontId", "fillId", "borderId", "xfId")
# openpyxl makes an object of each element of a workbook's styles (a font, a cell style...), at some 15 a
# millisecond: 4 MB of fonts took 32 s. A workbook's styles hold a few hundred
MAX_STYLE_ELEMENTS = 20_000
MAX_OBJECT_ELEMENTS = 20_000  # the same, in the other parts openpyxl reads into objects (check_object_parts)
# openpyxl opens each sheet as it loads a workbook, and looks each one up in lists of every part and relation:
# 9,900 empty sheets took 10 s. A game's workbook has a few
MAX_SHEETS = 1000



# How a workbook's parts are packed: deflated or stored, as every spreadsheet program writes them (zipfile bounds
# what it inflates of these alone)
_PACKINGS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
_ZIP_ENCRYPTED = 0x1  # a zip part's flag: its bytes are encrypted (zipfile asks for a password)
_PACKING_NAMES = {zipfile.ZIP_BZIP2: "bzip2", zipfile.ZIP_LZMA: "LZMA", 9: "Deflate64"}


# How a file begins: an .xlsx workbook is a zip package (a local file header, or an empty zip's end record); an
# encrypted one, and an Excel 97-2003 workbook, is a Compound File (OLE2), whose directory names the encrypted
# workbook's stream in UTF-16
ZIP_STARTS = (b"PK\x03\x04", b"PK\x05\x06")  # (a zip package: an .xlsx, .ods or .numbers file; the first holds parts)
_COMPOUND_FILE_START = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ENCRYPTED_STREAM = "EncryptedPackage".encode("utf-16-le")


SPREADSHEETS = (".csv", ".xlsx")
# Spreadsheets of formats pnp does not read, by the suffix their programs save them with: a table's file so named
# was read as YAML, and refused as "not UTF-8 text (byte 0xd0)" or "expected a list of cards" (a .tsv)
_OTHER_SPREADSHEETS = {
    ".xls": "an Excel 97-2003 workbook", ".xlsb": "an Excel binary workbook", ".xlsm": "an Excel macro-enabled workbook",
    ".xltx": "an Excel template", ".xltm": "an Excel template", ".ods": "an OpenDocument spreadsheet",
    ".fods": "an OpenDocument spreadsheet", ".numbers": "an Apple Numbers spreadsheet",
    ".tsv": "a tab-separated sheet", ".tab": "a tab-separated sheet"}


def check_spreadsheet_format(path: Path, shown: str, beneath: Path | None = None) -> None:
    """LoadError naming the table's file `shown` when it is not of a format pnp reads by its suffix: a spreadsheet
    of a format pnp does not read, by its suffix (it would be read as YAML, and refused in YAML's words); a
    workbook that is no zip package (check_zip_package); a text table (.csv, .yaml) whose first bytes are a
    workbook's (_check_text_table). Every check of what a table's file is, is here."""
    suffix = path.suffix.lower()
    if kind := _OTHER_SPREADSHEETS.get(suffix):
        raise LoadError(f"this is {kind} ({path.suffix}), which pnp does not read as a table: save the sheet as an "
                        "Excel Workbook (.xlsx) or as CSV UTF-8 (.csv, which may be separated by tabs), and name that "
                        "file", Mark(shown))
    if suffix == ".xlsx":
        check_zip_package(path, shown, beneath)
    else:
        _check_text_table(path, shown, "CSV" if suffix == ".csv" else "YAML", beneath)


def _check_text_table(path: Path, shown: str, kind: str, beneath: Path | None) -> None:
    """LoadError at 1:1 when the text table `path` (of `kind`, CSV or YAML) begins as a workbook does: a zip
    package (an .xlsx workbook renamed .csv was refused as "not UTF-8 text (byte 0xc7)", an empty one's bytes
    read as a header) or a Compound File (an .xls workbook renamed .csv, "not UTF-8 text (byte 0xd0)"). A file
    that cannot be opened is let be: its reader refuses it in its own words, as for any file."""
    try:
        with open_project_file(path, MAX_FILE_BYTES, Mark(shown), beneath=beneath) as file:
            start = file.read(len(_COMPOUND_FILE_START))
    except LoadError:
        return
    advice = "or save the sheet as CSV UTF-8" if kind == "CSV" else "and the table's `file:` so"
    if start.startswith(ZIP_STARTS):
        raise LoadError(f"this is a zip package, as an .xlsx workbook is, not {kind} text: name a workbook .xlsx, "
                        f"{advice}", Mark(shown, 1, 1))
    if start.startswith(_COMPOUND_FILE_START):
        raise LoadError(f"this is an Excel 97-2003 workbook (.xls), an encrypted workbook or another Office file of "
                        f"that format, not {kind} text: save the sheet as CSV UTF-8 or as an Excel Workbook (.xlsx)",
                        Mark(shown, 1, 1))


def check_zip_package(path: Path, shown: str, beneath: Path | None = None) -> None:
    """LoadError saying what the file is when it is not a zip package, as every .xlsx workbook is: a workbook
    saved with a password to open it, an Excel 97-2003 workbook or a text named .xlsx were each refused as
    "BadZipFile: File is not a zip file", in Python's words, saying neither what the file was nor what to do."""
    with open_project_file(path, MAX_FILE_BYTES, Mark(shown), beneath=beneath) as file:
        data = file.read(len(_COMPOUND_FILE_START))
        if data.startswith(ZIP_STARTS):  # (a workbook: zipfile reads it part by part)
            return
        data += file.read(MAX_FILE_BYTES)
    if data.startswith(_COMPOUND_FILE_START) and _ENCRYPTED_STREAM in data:
        raise LoadError("this workbook is encrypted (saved with a password to open it), and pnp cannot read it: "
                        "save it again without the password", Mark(shown))
    if data.startswith(_COMPOUND_FILE_START):
        raise LoadError("this is an Excel 97-2003 workbook (.xls) or another Office file of that format, named "
                        ".xlsx, which pnp does not read: save the sheet as an Excel Workbook (.xlsx)", Mark(shown))
    raise LoadError(f"not a readable .xlsx workbook: it does not begin as a zip package, as every .xlsx file does"
                    f"{_held(data)}",
                    Mark(shown))


def _held(data: bytes) -> str:
    """What a file that is no zip package seems to hold, for its refusal."""
    try:
        data[:4096].decode("utf-8")
    except UnicodeDecodeError as e:
        if e.start < 4092:  # (not a character cut short by the slice)
            return ""
    return " (it holds text: a CSV file is named .csv)" if data.strip() else " (it is empty)"


def local_name(tag: str) -> str:
    """An XML element's name without its namespace."""
    return tag.rpartition("}")[2]

def check_parts(book: zipfile.ZipFile, shown: str) -> None:
    """LoadError unless every part of the workbook inflates to a sane size at a sane ratio."""
    infos = book.infolist()
    if len(infos) > MAX_PARTS:
        raise LoadError(f"workbook holds {len(infos):,} parts; pnp reads at most {MAX_PARTS:,}", Mark(shown))
    _refuse_packings(infos, shown)
    _refuse_twins(infos, shown)
    _refuse_escaped_names(infos, shown)
    if sum(info.file_size for info in infos) > MAX_UNZIPPED_BYTES:  # (before any part is read, to tell XML)
        raise LoadError(f"workbook too large: it unpacks to more than {MAX_UNZIPPED_BYTES // 2**20} MB", Mark(shown))
    xml = [info for info in infos if _is_xml(book, info)]
    for info in xml:
        if info.file_size > MAX_XML_PART_BYTES:
            raise LoadError(f"part {named(info.filename)} of the workbook unpacks to {info.file_size / 2**20:,.1f} MB; "
                            f"pnp reads at most {MAX_XML_PART_BYTES // 2**20} MB of XML per part", Mark(shown))
    for info in infos:
        if info.file_size > 2**20 and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            raise LoadError(f"part {named(info.filename)} of the workbook is packed "
                            f"{info.file_size // max(info.compress_size, 1):,} to 1 (a zip bomb?)", Mark(shown))
    if sum(info.file_size for info in xml) > MAX_XML_BYTES:  # (before the XML is parsed for a document type)
        raise LoadError(f"workbook too large: its XML parts unpack to more than {MAX_XML_BYTES // 2**20} MB",
                        Mark(shown))
    _refuse_document_types(book, xml, shown)


def part_key(name: str) -> str:
    """A part's name as a package's names are compared: without the case of its ASCII letters (A-Z), every other
    character as it is (Open Packaging Conventions: part names are compared as ASCII strings without case). Full
    case folding made 'xl/ſtyles.xml' (a long s) and 'xl/worKsheets/...' (a Kelvin sign) one name with the parts
    of ASCII names: a workbook holding 'Straße.xml' beside 'strasse.xml' was refused as of two parts of one
    name, and relations naming a part 'xl/ſtyles.xml' were taken as naming 'xl/styles.xml', the part pnp read.
    A backslash is taken for the slash a zip program on Windows may read it as (no part's name holds one): zipfile read
    'xl/worksheets/sheet1.xml' beside a part 'xl\\worksheets\\sheet1.xml', its twin there."""
    return name.replace("\\", "/").translate(_ASCII_LOWER)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _refuse_packings(infos: list[zipfile.ZipInfo], shown: str) -> None:
    """LoadError at the first part of the workbook encrypted, or packed otherwise than deflated or stored: zipfile inflates
    bzip2 and LZMA with no bound on one read (a part of 1,300 bzip2 bytes, saying it unpacks to 1,000, inflated
    1.8 GB in 10 s before its first byte was looked at)."""
    if locked := next((info for info in infos if info.flag_bits & _ZIP_ENCRYPTED), None):
        # (zipfile's refusal named the part by its ZipInfo: "RuntimeError: File <ZipInfo filename=...> is encrypted")
        raise LoadError(f"part {named(locked.filename)} of the workbook is encrypted as a zip's part, which no spreadsheet "
                        "program writes (a workbook with a password to open it is encrypted whole): the file is damaged",
                        Mark(shown))
    if packed := next((info for info in infos if info.compress_type not in _PACKINGS), None):
        raise LoadError(f"part {named(packed.filename)} of the workbook is packed by method {packed.compress_type} ("
                        f"{_PACKING_NAMES.get(packed.compress_type, 'unknown')}), where a spreadsheet program "
                        "deflates or stores each part: save it again from the spreadsheet program", Mark(shown))


def _refuse_twins(infos: list[zipfile.ZipInfo], file: str) -> None:
    """LoadError at the second part of the workbook named as one before it, in any case of its ASCII letters (a
    package's part names are compared so, part_key, and are each one part's): zipfile, and openpyxl through it, read the last of two
    xl/worksheets/sheet1.xml, where a spreadsheet program may read the first or refuse the file (a text read
    from one, shown from the other, exit 0)."""
    seen: set[str] = set()
    for info in infos:
        if (name := part_key(info.filename)) in seen:
            raise LoadError(f"the workbook holds two parts named {shown(info.filename)} (in any case): the file is "
                            "damaged; save it again from the spreadsheet program", Mark(file))
        seen.add(name)


def _refuse_escaped_names(infos: list[zipfile.ZipInfo], file: str) -> None:
    """LoadError at the first part of the workbook whose name escapes a letter, a digit, - . _ ~ or a slash (%31 for
    1), which no part's name holds (Open Packaging Conventions: a part name escapes none of them): a spreadsheet
    program reads a relation's target naming worksheets/sheet%31.xml as the part worksheets/sheet1.xml, where
    openpyxl reads the part named so, letter for letter (a decoy beside the sheet shown was read, exit 0)."""
    for info in infos:
        if found := _ESCAPED_PLAIN.search(info.filename):
            raise LoadError(f"part {named(info.filename)} of the workbook is named with {shown(found[0])}, an escaped "
                            f"{shown(chr(int(found[1], 16)))}, which no part's name holds (a spreadsheet program reads "
                            "it as that character, and another part): the file is damaged; save it again from the "
                            "spreadsheet program", Mark(file))


# A percent escape of a character a part's name holds as it is (URI's unreserved characters), or of a slash
_ESCAPED_PLAIN = re.compile(r"%(2[dDeEfF]|3[0-9]|[46][1-9a-fA-F]|[57][0-9aA]|5[cCfF]|7[eE])")


def _refuse_document_types(book: zipfile.ZipFile, xml: list[zipfile.ZipInfo], shown: str) -> None:
    """LoadError at the first of the workbook's `xml` parts that declares a document type."""
    for info in xml:
        if _declares_a_document_type(book, info):
            # (its entities expand: 3 MB of sheet XML gave a cell of 300 MB, 16 s and 1 GB)
            raise LoadError(f"part {named(info.filename)} of the workbook declares a document type (<!DOCTYPE>), which "
                            "no spreadsheet program writes (a workbook's XML has none): the file is damaged",
                            Mark(shown))


def check_number_formats(book: zipfile.ZipFile, file: str) -> None:
    """LoadError at the first number format of the workbook's styles (the part openpyxl reads them from) whose
    code is longer than MAX_FORMAT_CHARS, past MAX_STYLE_ELEMENTS, or when its cell styles ask openpyxl too
    much: it tells each cell
    style's format for a date by a regular expression whose time grows with the square of the code's length,
    style by style (110,000 styles of one 999-character format ran past a minute); the part's size is checked
    before (check_parts)."""
    from xml.etree.ElementTree import iterparse

    from openpyxl.styles.numbers import BUILTIN_FORMATS

    if "xl/styles.xml" not in book.namelist():
        return
    codes: dict[str | None, str] = {}
    styles: Counter[str | None] = Counter()  # a cell style's numFmtId -> how many styles have it
    named: dict[str, list[int]] = {"cellStyle": [], "cellStyleXfs": []}  # (_read_named_style)
    with book.open("xl/styles.xml") as part:
        for elements, (_, element) in enumerate(iterparse(part), start=1):
            if elements > MAX_STYLE_ELEMENTS:
                raise LoadError(f"the workbook's styles hold more than {MAX_STYLE_ELEMENTS:,} elements (fonts, fills, "
                                f"cell styles...); pnp reads at most {MAX_STYLE_ELEMENTS:,} (a workbook has a few "
                                "hundred): the file is damaged", Mark(file))
            _check_style_numbers(element, file)  # (before either reads one)
            _read_named_style(element, named)  # (before _read_style clears the element)
            _read_style(element, codes, styles, file)
    _check_named_styles(named, file)
    work = sum(len(codes.get(key) or BUILTIN_FORMATS.get(int(key or 0), "")) ** 2 * count
               for key, count in styles.items())
    if work > MAX_FORMAT_WORK:
        raise LoadError(f"the workbook has {sum(styles.values()):,} cell styles, with number formats of up to "
                        f"{max(map(len, codes.values()), default=0):,} characters: more than pnp reads (the longer "
                        "the formats, the fewer styles): the file is damaged", Mark(file))


def _read_style(element: Any, codes: dict[str | None, str], styles: Counter[str | None], file: str) -> None:
    """Reads an element of the workbook's styles (check_number_formats) into `codes` (a number format's code by
    its number) and `styles` (how many cell styles have each number format); LoadError at a number format's
    code past MAX_FORMAT_CHARS."""
    tag = local_name(element.tag)
    number = element.get("numFmtId")
    if tag == "numFmt":
        code = codes[number] = element.get("formatCode", "")
        if len(code) > MAX_FORMAT_CHARS:
            raise LoadError(f"the workbook's number format {shown(number or '?')} is {len(code):,} characters long; "
                            f"pnp reads at most {MAX_FORMAT_CHARS:,} (Excel takes 255): the file is damaged",
                            Mark(file))
    elif tag == "cellXfs":
        styles.update(xf.get("numFmtId") for xf in element if local_name(xf.tag) == "xf")
    if tag != "xf":  # (a cellXfs reads its own)
        element.clear()


def _check_style_numbers(element: Any, file: str) -> None:
    """LoadError at an element of the workbook's styles numbering a style otherwise than a workbook writes
    (openpyxl's int() refused 5,000 digits, or a '²', in Python's words; so did _read_named_style's)."""
    for attribute in _STYLE_NUMBERS:
        if (number := element.get(attribute)) is not None and not _FORMAT_NUMBER.fullmatch(number):
            raise LoadError(f"the workbook's styles give a style's {attribute} as {shown(number)}, where a workbook "
                            "writes a number of at most 9 digits: the file is damaged", Mark(file))


def _read_named_style(element: Any, named: dict[str, list[int]]) -> None:
    """Adds to `named` the base style (xfId, checked a number) of an element of the styles that is a named style
    (<cellStyle>), or how many base styles a list of them (<cellStyleXfs>) holds."""
    tag = local_name(element.tag)
    if tag == "cellStyle":
        named[tag].append(int(element.get("xfId") or 0))
    elif tag == "cellStyleXfs":
        named[tag].append(sum(local_name(xf.tag) == "xf" for xf in element))


def _check_named_styles(named: dict[str, list[int]], file: str) -> None:
    """LoadError at a named style (<cellStyle>) based on a style its workbook's list of base styles has not:
    openpyxl printed "5 is out of range" on pnp's output, then refused the workbook with an IndexError."""
    bases = named["cellStyleXfs"][-1] if named["cellStyleXfs"] else 0  # (openpyxl reads the last list)
    if (based := next((n for n in named["cellStyle"] if n >= bases), None)) is not None:
        raise LoadError(f"the workbook's styles hold a named style based on style {based}, and list {bases:,} base "
                        "styles (numbered from 0): the file is damaged", Mark(file))


def check_object_parts(book: zipfile.ZipFile, file: str) -> None:
    """LoadError when a part openpyxl reads whole into objects, by the names it reads them by (the list of
    parts, their relations, the document's properties), holds more than MAX_OBJECT_ELEMENTS elements (30,000
    custom properties took 6 s); the workbook and styles parts are counted where they are read
    (check_sheet_count, check_number_formats); and when a relations part lists a relation without what each has
    (_check_relations). The parts' sizes are checked before (check_parts)."""
    from openpyxl.xml.constants import ARC_CONTENT_TYPES, ARC_CORE, ARC_CUSTOM

    for name in sorted(n for n in book.namelist() if n in (ARC_CONTENT_TYPES, ARC_CORE, ARC_CUSTOM)
                       or n.endswith(".rels")):
        _count_elements(book, name, file)
        if name.endswith(".rels"):
            _check_relations(book, name, file)


def _count_elements(book: zipfile.ZipFile, name: str, file: str) -> None:
    """LoadError when the part `name` of the workbook holds more than MAX_OBJECT_ELEMENTS elements."""
    from xml.etree.ElementTree import iterparse

    with book.open(name) as part:
        try:
            for elements, (_, element) in enumerate(iterparse(part), start=1):
                if elements > MAX_OBJECT_ELEMENTS:
                    raise LoadError(f"part {named(name)} of the workbook holds more than {MAX_OBJECT_ELEMENTS:,} "
                                    f"elements; pnp reads at most {MAX_OBJECT_ELEMENTS:,} (a workbook's have a "
                                    "few dozen): the file is damaged", Mark(file))
                element.clear()
        except SyntaxError:  # (XML that does not parse: openpyxl's refusal says so)
            pass


def check_sheet_count(book: zipfile.ZipFile, file: str) -> int:
    """The number of sheets the workbook lists; LoadError when it lists more than MAX_SHEETS sheets, or more
    defined names than _MOST_IN_WORKBOOK says, counted in its workbook part (found as openpyxl finds it; the
    part's size is checked before, and several sheets may share one part). Run after check_object_parts, which
    checked the relations parts it reads."""
    from xml.etree.ElementTree import iterparse

    from openpyxl.packaging.manifest import Manifest
    from openpyxl.packaging.relationship import get_dependents, get_rels_path
    from openpyxl.reader.excel import _find_workbook_part  # type: ignore[attr-defined]  # (as openpyxl finds it)
    from openpyxl.xml.constants import ARC_CONTENT_TYPES, REL_NS
    from openpyxl.xml.functions import fromstring

    if ARC_CONTENT_TYPES not in book.namelist():
        raise LoadError(_no_list_of_parts(book), Mark(file))
    manifest = Manifest.from_tree(fromstring(book.read(ARC_CONTENT_TYPES)))  # type: ignore[arg-type]
    try:
        workbook = _find_workbook_part(manifest).PartName[1:]
    except OSError:  # ("File contains no valid workbook part")
        raise LoadError(f"the package's list of parts ({ARC_CONTENT_TYPES}) names no workbook part, which every "
                        ".xlsx has: this is another Office file named .xlsx (a Word document, a presentation?), or "
                        "a damaged one", Mark(file)) from None
    counts = dict.fromkeys(_MOST_IN_WORKBOOK, 0)
    with book.open(workbook) as part:
        for _, element in iterparse(part):
            for counted in {"*", local_name(element.tag)} & counts.keys():  # (every element, and its kind)
                counts[counted] += 1
                if counts[counted] > (most := _MOST_IN_WORKBOOK[counted]):
                    raise LoadError(f"workbook has more than {most:,} {_WORKBOOK_WORDS[counted]}; pnp reads at most "
                                    f"{most:,}", Mark(file))
            element.clear()
    # the links to other workbooks it lists, each read whole into objects (4 MB of a link's cached values: 5 s)
    names = set(book.namelist())
    relations = get_dependents(book, rels) if (rels := get_rels_path(workbook)) in names else None
    for link in relations.find(f"{REL_NS}/externalLink") if relations else ():
        if link.target in names:  # (openpyxl's refusal names the part missing)
            _count_elements(book, link.target, file)
    _check_parts_read(book, workbook, manifest, relations, file)
    _check_sheet_relations(book, workbook, {rel.Id for rel in relations if rel.Id} if relations else set(), file)
    return counts["sheet"]


_RELATION_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"


def _check_sheet_relations(book: zipfile.ZipFile, workbook: str, ids: set[str], file: str) -> None:
    """LoadError naming a sheet the `workbook` part lists by a relation its relations (of `ids`) do not list:
    openpyxl's refusal was "KeyError: 'rId9'", in Python's words."""
    from xml.etree.ElementTree import iterparse

    with book.open(workbook) as part:
        for _, element in iterparse(part):
            # (a sheet of no relation, as a Strict Open XML workbook's are to openpyxl, is left out by openpyxl, and
            # refused by check_sheet_count's caller as such)
            if local_name(element.tag) == "sheet" and (rel := element.get(_RELATION_ID)) is not None and rel not in ids:
                raise LoadError(f"sheet {named(element.get('name') or '')} finds its part by relation {named(rel)}, "
                                "which the workbook's relations do not list: the file is damaged; save it again from "
                                "the spreadsheet program", Mark(file))
            element.clear()


def _check_relations(book: zipfile.ZipFile, part: str, file: str) -> None:
    """LoadError naming the relations `part` of the workbook when one of the relations it lists lacks what each
    has (an Id, a Type, a Target), where openpyxl's get_dependents prints its own warning, with its install's path,
    and reads the part as listing nothing (a sheet's relations, read for its tables, so printed one on pnp's
    output); XML that does not parse is left to the reader of the part to refuse."""
    from xml.etree.ElementTree import ParseError

    from openpyxl.packaging.relationship import RelationshipList
    from openpyxl.xml.functions import fromstring

    try:
        RelationshipList.from_tree(fromstring(book.read(part)))
    except ParseError:
        return
    except TypeError:  # (what get_dependents warns of)
        raise LoadError(f"part {named(part)} of the workbook lists a relation without its Id, Type or Target, which a "
                        "workbook gives each: the file is damaged", Mark(file)) from None


def _no_list_of_parts(book: zipfile.ZipFile) -> str:
    """The refusal of a zip package without the list of parts every .xlsx workbook holds, saying what it is when
    it says so itself (an OpenDocument file names its kind in its part `mimetype`): openpyxl's was "KeyError:
    There is no item named '[Content_Types].xml' in the archive"."""
    kind = ""
    if "mimetype" in book.namelist():
        with book.open("mimetype") as part:
            kind = part.read(200).decode("ascii", "replace")
    if kind.startswith("application/vnd.oasis.opendocument.spreadsheet"):
        return ("this is an OpenDocument spreadsheet (.ods) named .xlsx, which pnp does not read: save the sheet as "
                "an Excel Workbook (.xlsx)")
    if kind.startswith("application/vnd.oasis.opendocument"):
        return f"this is an OpenDocument file ({shown(kind)}) named .xlsx, not a workbook"
    return ("the package holds no list of parts ([Content_Types].xml), which every .xlsx holds: this is a zip of "
            "other files named .xlsx, or a damaged workbook")


def _check_parts_read(book: zipfile.ZipFile, workbook: str, manifest: Any, relations: Any, file: str) -> None:
    """LoadError when the package's relations name its workbook part, or the `workbook` part's `relations` its
    styles or its shared texts, in another part than the one openpyxl reads them from (the workbook part and the
    shared texts from the part the list of parts, `manifest`, names first, the styles always from xl/styles.xml),
    or openpyxl reads such a part the relations do not name: a spreadsheet program reads them by the relations,
    and shows the cells by those parts (a decoy xl/styles.xml passed while the styles the relations named showed
    every text cell as "Heal 9 " and the text, exit 0)."""
    from openpyxl.packaging.relationship import get_dependents
    from openpyxl.xml.constants import ARC_ROOT_RELS, ARC_STYLE, REL_NS, SHARED_STRINGS

    names = set(book.namelist())
    shared = manifest.find(SHARED_STRINGS)
    read = {"officeDocument": (workbook, get_dependents(book, ARC_ROOT_RELS) if ARC_ROOT_RELS in names else None),
            "styles": (ARC_STYLE if ARC_STYLE in names else None, relations),
            "sharedStrings": (shared.PartName[1:] if shared is not None else None, relations)}
    for kind, (part, listed) in read.items():
        targets = sorted({rel.target for rel in listed.find(f"{REL_NS}/{kind}")} if listed else set())
        if list(map(part_key, targets)) != ([part_key(part)] if part else []):
            raise LoadError(f"the workbook's relations name its {_READ_PARTS[kind]} in "
                            f"{', '.join(map(named, targets)) or 'no part'}, and pnp reads them (as openpyxl does) "
                            f"from {named(part) if part else 'no part'}: a spreadsheet program would "
                            "show its cells otherwise than pnp reads them; the file is damaged", Mark(file))


_READ_PARTS = {"officeDocument": "workbook part (its sheets)", "styles": "styles (number formats)",
               "sharedStrings": "shared texts"}


# What a workbook part lists, at most: openpyxl opens each sheet, and makes each defined name (a named range)
# an object, at some 10 a millisecond (98,000 names in 4 MB took 11 s). A game's workbook has a few of each
_MOST_IN_WORKBOOK = {"sheet": MAX_SHEETS, "definedName": 10_000, "*": MAX_OBJECT_ELEMENTS}
_WORKBOOK_WORDS = {"sheet": "sheets", "definedName": "defined names (named ranges)",
                   "*": "elements (views, names...)"}


# What may come before an XML document's first '<': byte order marks (UTF-8, UTF-16) and white space, in UTF-16 too
_BEFORE_XML = b"\xef\xbb\xbf\xfe\xff \t\r\n\0"


def _is_xml(book: zipfile.ZipFile, info: zipfile.ZipInfo) -> bool:
    """Whether a part of the workbook may be XML openpyxl parses: by its content, not its name (a sheet's XML
    in a part named sheet1.dat, which the workbook's relations may name, was parsed past every XML limit: 150
    MB took 40 s and 3 GB). Its first _XML_LEAD bytes are read: XML when the first that is not white space is
    '<', or when they are all white space (held to the XML limits: 200 parts of 1 MB of spaces were each
    inflated whole to find their first byte, 5 s)."""
    with book.open(info) as part:
        lead = part.read(_XML_LEAD)
    rest = lead.lstrip(_BEFORE_XML)
    return rest[:1] == b"<" or bool(lead) and not rest


_XML_LEAD = 4096  # bytes read of each part to tell XML (a picture's first is not white space; XML's first is '<')


class _FirstElement(Exception):
    """The parse of a part reached its first element: what may come before it (its declarations) was read."""


def _declares_a_document_type(book: zipfile.ZipFile, info: zipfile.ZipInfo) -> bool:
    """Whether an XML part of the workbook declares a document type, read up to its first element (where a
    declaration must be), in whatever encoding it is written."""
    import pyexpat

    parser = pyexpat.ParserCreate()
    declared = []

    def first_element(*_: object) -> None:
        raise _FirstElement

    parser.StartDoctypeDeclHandler = lambda *_: declared.append(True)
    parser.StartElementHandler = first_element
    with book.open(info) as part:
        try:
            while (chunk := part.read(1 << 16)) and not declared:
                parser.Parse(chunk, False)
        except (_FirstElement, pyexpat.ExpatError):  # (XML that does not parse is refused where it is read)
            pass
    return bool(declared)
