"""Reading back what a PDF really draws: stroked line segments, clip rectangles, text positions, fonts."""

import decimal
import io

import pikepdf
from pypdf import PdfReader
from pypdf.generic import IndirectObject, create_string_object

MM = 72 / 25.4


def _mul(a, b):
    """PDF matrix product a x b, matrices as [a b c d e f]."""
    return [
        a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
        a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3],
        a[4] * b[0] + a[5] * b[2] + b[4], a[4] * b[1] + a[5] * b[3] + b[5]]


def _apply(m, x, y):
    return (m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5])


def _operations(content, ctm=(1, 0, 0, 1, 0, 0)):
    """(operator, operands, current transformation matrix) for each operator of a content stream, the
    graphics state (q, Q, cm) followed."""
    ctm, stack = list(ctm), []
    for operands, op in content.operations:
        op = op.decode() if isinstance(op, bytes) else op
        if op == "q":
            stack.append(ctm)
        elif op == "Q":
            ctm = stack.pop()
        elif op == "cm":
            ctm = _mul([float(v) for v in operands], ctm)
        else:
            yield op, operands, ctm


def _walk(page):
    """The top-level operators of a page (forms are not entered)."""
    return _operations(_contents(page))


def _contents(page):
    """The page's content stream, parsed once per page read (a test reading a page's lines and its text parsed
    it twice; pypdf parses a stream anew each time it is asked)."""
    kept = page.__dict__.get("_parsed_contents")
    if kept is None:
        reference = page.indirect_reference
        if reference is None or page.get_contents() is None:
            kept = () if page.get_contents() is None else _Parsed(page.get_contents().operations)
        else:
            kept = _parsed(page.pdf, reference)
        page.__dict__["_parsed_contents"] = kept
    return kept or None


def _parsed(pdf, reference):
    """The operations of the page or form at `reference`, parsed by qpdf (pikepdf, on the same bytes) and given
    as pypdf gives them: numbers, names as '/Name', strings decoded as pypdf decodes them (pypdf's own parser,
    in Python, was most of the time the suite spent reading PDFs back)."""
    pike = pdf.__dict__.get("_pikepdf")
    if pike is None:
        pdf.stream.seek(0)
        pike = pdf.__dict__["_pikepdf"] = pikepdf.open(io.BytesIO(pdf.stream.read()))
    found = pike.get_object((reference.idnum, reference.generation))
    return _Parsed([([_plain(v) for v in operands], str(op))
                    for operands, op in pikepdf.parse_content_stream(found)])


def _plain(value):
    kind = type(value)
    if kind is int or kind is decimal.Decimal:
        return value
    if isinstance(value, pikepdf.Name):
        return str(value)
    if isinstance(value, pikepdf.String):
        return create_string_object(bytes(value))
    if isinstance(value, pikepdf.Array):
        return [_plain(v) for v in value]
    return value


def page_geometry(page):
    """Top-level drawing of a page (forms are not entered): line segments and clip rectangles in page
    coordinates, with the current transformation matrix applied."""
    segments, clips, pending_rect, start = [], [], None, None
    for op, operands, ctm in _walk(page):
        if op == "m":
            start = _apply(ctm, float(operands[0]), float(operands[1]))
        elif op == "l" and start is not None:
            end = _apply(ctm, float(operands[0]), float(operands[1]))
            segments.append((start, end))
            start = end
        elif op == "re":
            x, y, w, h = (float(v) for v in operands)
            (x1, y1), (x2, y2) = _apply(ctm, x, y), _apply(ctm, x + w, y + h)
            pending_rect = (min(x1, x2), min(y1, y2), abs(x2 - x1), abs(y2 - y1))
        elif op in ("W", "W*") and pending_rect:
            clips.append(pending_rect)
        elif op in ("S", "f", "B", "n", "b", "f*", "B*"):
            pending_rect = None if op != "n" else pending_rect
    return segments, clips


def texts(page):
    """(text, x, y) of every string shown on the page."""
    found = []

    def visit(text, cm, tm, font_dict, font_size):
        if text.strip():
            m = _mul(tm, cm)
            found.append((text.strip(), m[4], m[5]))

    page.extract_text(visitor_text=visit)
    return found


def fonts(reader):
    """{font name: embedded?} for every font object in the file, forms included."""
    out = {}
    for num in range(1, int(reader.trailer["/Size"])):
        try:
            obj = reader.get_object(num)
        except Exception:
            continue
        if isinstance(obj, IndirectObject):
            obj = obj.get_object()
        if hasattr(obj, "get") and obj.get("/Type") == "/Font":
            desc = obj.get("/FontDescriptor")
            if desc is None and obj.get("/DescendantFonts"):
                desc = obj["/DescendantFonts"][0].get_object().get("/FontDescriptor")
            desc = desc.get_object() if desc is not None else None
            embedded = bool(desc) and any(k in desc for k in ("/FontFile", "/FontFile2", "/FontFile3"))
            out[str(obj.get("/BaseFont"))] = embedded
    return out


def read(path):
    return PdfReader(str(path))


def placed_forms(page):
    """(form name, x, y, texts inside the form) for each form XObject drawn at the top level of a page."""
    xobjects = page["/Resources"].get("/XObject", {})
    out = []
    for op, operands, ctm in _walk(page):
        if op == "Do":
            name = str(operands[0])
            form = xobjects[name].get_object()
            found = []
            content = form.get_data().decode("latin-1")
            for chunk in content.split("Tj")[:-1]:
                start = chunk.rfind("(")
                if start >= 0:
                    found.append(chunk[start + 1:chunk.rfind(")")])
            out.append((name, ctm[4], ctm[5], found))
    return out


def targets(page, arm=2.2 * MM):
    """Registration targets on a tile page, in page coordinates: where a horizontal and a vertical line of
    length 2 * arm cross at their middles."""
    segments, _ = page_geometry(page)
    across = [((a[0] + b[0]) / 2, a[1]) for a, b in segments
              if abs(a[1] - b[1]) < 1e-6 and abs(abs(a[0] - b[0]) - 2 * arm) < 0.01]
    down = [(a[0], (a[1] + b[1]) / 2) for a, b in segments
            if abs(a[0] - b[0]) < 1e-6 and abs(abs(a[1] - b[1]) - 2 * arm) < 0.01]
    return [(x, y) for x, y in across if any(abs(x - dx) < 0.01 and abs(y - dy) < 0.01 for dx, dy in down)]


def tile_targets(page, arm=2.2 * MM):
    """The targets of a tile page in the board's own coordinates (minus where the board form was placed)."""
    forms = [(x, y) for name, x, y, _ in placed_forms(page) if "board" in name]
    if not forms:
        return set()
    ox, oy = forms[0]
    return {(round(x - ox, 1), round(y - oy, 1)) for x, y in targets(page, arm)}


def drawn(page, enter_forms=True):
    """Everything a page draws, in page coordinates: ('text', string, x, y, matrix, size) for each string
    shown, ('form', name, x, y, matrix) for each form placed (and, unless `enter_forms` is false, what it
    draws), and ('path', points, paint) for each painted path ('re' gives its four corners)."""
    out = []
    _walk_content(_contents(page), page["/Resources"], [1, 0, 0, 1, 0, 0], out, page.pdf, enter_forms)
    return out


class _Parsed:
    """A content stream's operations, parsed once: a form placed on every card of a sheet is read once."""

    def __init__(self, operations):
        self.operations = operations


def _parsed_form(reference, xobject, pdf):
    """The operations of a form XObject, kept on its reader by object number (pypdf parses a stream anew each
    time, which made walking every placement of a deck's forms the slowest part of the suite)."""
    from pypdf.generic import ContentStream

    if not isinstance(reference, IndirectObject):
        return ContentStream(xobject, pdf)
    kept = pdf.__dict__.setdefault("_parsed_forms", {})
    key = (reference.idnum, reference.generation)
    if key not in kept:
        kept[key] = _parsed(pdf, reference)
    return kept[key]


def _walk_content(content, resources, ctm, out, pdf, enter_forms=True):
    from pypdf.generic import ContentStream

    if content is None:
        return
    if not isinstance(content, (ContentStream, _Parsed)):
        content = ContentStream(content, pdf)
    tm, size, path = [1, 0, 0, 1, 0, 0], 0.0, []
    for op, operands, ctm in _operations(content, ctm):
        if op == "BT":
            tm = [1, 0, 0, 1, 0, 0]
        elif op == "Tf":
            size = float(operands[1])
        elif op == "Tm":
            tm = [float(v) for v in operands]
        elif op == "Td":
            tm = _mul([1, 0, 0, 1, float(operands[0]), float(operands[1])], tm)
        elif op in ("Tj", "TJ"):
            text = operands[0] if op == "Tj" else "".join(p for p in operands[0] if isinstance(p, str))
            m = _mul(tm, ctm)
            out.append(("text", str(text), m[4], m[5], m, size))
        elif op in ("m", "l"):
            path.append(_apply(ctm, float(operands[0]), float(operands[1])))
        elif op == "c":
            path.append(_apply(ctm, float(operands[4]), float(operands[5])))
        elif op == "re":
            x, y, w, h = (float(v) for v in operands)
            path += [_apply(ctm, x, y), _apply(ctm, x + w, y), _apply(ctm, x + w, y + h), _apply(ctm, x, y + h)]
        elif op in ("S", "s", "f", "F", "f*", "B", "B*", "b", "b*"):
            out.append(("path", path, op))
            path = []
        elif op == "n":
            path = []
        elif op == "Do":
            _form(str(operands[0]), resources, ctm, out, pdf, enter_forms)


def _form(name, resources, ctm, out, pdf, enter_forms):
    reference = resources["/XObject"].raw_get(name)
    xobject = reference.get_object()
    if xobject.get("/Subtype") != "/Form":
        out.append(("image", name, ctm[4], ctm[5], ctm))
        return
    matrix = [float(v) for v in xobject.get("/Matrix", [1, 0, 0, 1, 0, 0])]
    placed = _mul(matrix, ctm)
    out.append(("form", name, placed[4], placed[5], placed))
    if not enter_forms:
        return
    inner = xobject.get("/Resources", resources)
    _walk_content(_parsed_form(reference, xobject, pdf), inner.get_object() if hasattr(inner, "get_object") else inner,
                  placed, out, pdf)


def page_strings(path):
    """The text of each page of a PDF, forms included, as pdfium reads it: for a test that searches a page's
    words (pypdf's extract_text parses the page again and every font's map, 2 s a page of DinoSpan's boards)."""
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(str(path))
    try:
        return [page.get_textpage().get_text_bounded() for page in document]
    finally:
        document.close()


def page_texts(path):
    """The text of each page of a PDF, forms included, as pypdf extracts it."""
    return [page.extract_text() for page in read(path).pages]
