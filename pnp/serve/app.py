"""`pnp serve`: the live preview as a Starlette app run by uvicorn. Each served game has a Preview, refreshed in
a worker thread when the watcher reports a saved input; open pages hear of it through server-sent events and
fetch the new state. Files are served only from the project's output/, cards/, layouts/ and fonts/ folders, no
request writes anything, nothing a request says is ever run, and another site's page gets nothing but a page
opened whole (OwnPagesOnly)."""

import asyncio
import codecs
import contextlib
import html
import ipaddress
import itertools
import json
import logging
import os
import re
import signal
import sys
import threading
import time
from concurrent.futures import Future
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from importlib import resources
from collections.abc import AsyncIterator
from functools import partial
from urllib.parse import quote
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, BinaryIO, Generic, TypeVar, cast

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.middleware import Middleware
from starlette.responses import (HTMLResponse, PlainTextResponse, RedirectResponse,
                                 Response, StreamingResponse)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from ..errors import DataError, PnpError, unforeseen
from ..project import hidden_part, open_beneath
from ..model.game import shown_title
from ..model.load import load_file
from ..report import HIDES_TEXT, Diagnostic, escaped, printable
from .preview import TEXT_SUFFIXES, Preview
from .watch import inputs_state, watch

if TYPE_CHECKING:
    import socket
    from importlib.resources.abc import Traversable

    import uvicorn
    from starlette.requests import Request

    from ..project import Project

OnRefresh = Callable[[str, dict[str, Any]], None]  # (game, its preview's new state) after each refresh
Drawing = TypeVar("Drawing")

SERVED_FOLDERS = ("output", "cards", "layouts", "fonts")  # what /files/ and /source/ may read, inside the project
# (fonts/ too: the page links an error of fonts/fonts.yaml to its line, which was a 404)
DIGEST = re.compile(r"^(book-)?[0-9a-f]{16,64}\Z")
# a rulebook page's number in its address, read by the handler: Starlette's `int` convertor raised on 5,000
# digits (Python's limit on converting text to int), a traceback in the terminal for one request
PAGE_NUMBER = re.compile(r"[0-9]{1,9}")
HOST_HEADER = re.compile(r"(?:\[(?P<address>[0-9a-f:.]+)\]|(?P<name>[a-z0-9._-]+))(?::[0-9]{1,5})?", re.IGNORECASE)
LOCAL_NAMES = ("localhost",)  # names that always mean this computer (addresses are allowed by HostCheck)
KEEP_ALIVE = 15  # seconds between comments on an idle event stream
ENDED = -1  # put in a page's queue of generations (which count from 0): its event stream ends (Hub.end_streams)
NOT_FOUND = PlainTextResponse("not found", status_code=404)
MAX_SOURCE_BYTES = 5_000_000  # the largest data or layout file /source/ shows as a page
LINE_END = re.compile(r"\r\n|\r|\n")
MAX_SOURCE_LINES = 100_000  # the lines of it the page shows (a 10,000-item table is some 60,000)
SOURCE_PIECE = 1 << 14  # the characters of a line of a source page escaped and sent at a time
SENT_CHUNK = 1 << 16  # the bytes of an answer handed to a connection at a time (sent): only once it took the last


def game_address(game: str) -> str:
    """The address of a game's page: its folder's name escaped whole, as page.js reads it back (a game named
    'a#b', 'q?x' or '%41' was linked as /g/a, /g/q and /g/A, and '100%' broke the page's script)."""
    return f"/g/{quote(game, safe='')}/"


def project_file(project: "Project", rel: str) -> Path | None:
    """The real path of a file of the project that may be served for the request path `rel`, or None: only
    regular files under the SERVED_FOLDERS with no hidden part, both as requested and after
    following every link (a link to .env or .git/ is refused, and so is a pipe or a device)."""
    if not rel or "\\" in rel or "\0" in rel or ":" in rel or not _servable(PurePosixPath(rel).parts):
        return None
    try:
        real = project.inside(project.root.joinpath(rel), built=True)
        return real if _servable(real.relative_to(project.root).parts) and real.is_file() else None
    except (DataError, OSError):
        return None


def served(project: "Project", real: Path | None) -> BinaryIO | None:
    """The file `project_file` found, opened as it was checked (project.open_beneath): between the check and
    the reading, a folder of its path swapped for a link served a file outside the project, and the file
    swapped for a named pipe held a server thread for good. None when it is no longer there as checked."""
    if real is None:
        return None
    try:
        return os.fdopen(open_beneath(project.root, real), "rb")
    except (OSError, ValueError):
        return None


# what /files/ serves as what it is: pnp's outputs and pictures, and the text a game is written in. Any other
# file of a game someone sent (an .html, an .svg with a <script>) is a download: served as a page, its script
# ran with the preview's address, read every file the preview serves and the cookies of every other server on
# this computer (cookies do not tell ports apart)
PASSIVE_TYPES = {".pdf": "application/pdf", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
                 ".webp": "image/webp", **{suffix: "text/plain; charset=utf-8" for suffix in TEXT_SUFFIXES}}


def served_as(real: Path) -> tuple[str, dict[str, str]]:
    """(media type, headers) of a project file /files/ serves: a passive type known by its suffix, never
    guessed by the browser (nosniff), else a download."""
    headers = {"X-Content-Type-Options": "nosniff"}
    media = PASSIVE_TYPES.get(real.suffix.lower())
    if media is None:
        return "application/octet-stream", {**headers, "Content-Disposition": "attachment"}
    return media, headers


def _chunks(opened: BinaryIO, size: int) -> Iterator[bytes]:
    """At most the first `size` bytes of the file (its length when it was opened: one growing is not read on
    for good), in chunks, fewer when it shrinks while read (an editor saving it in place); the file is closed at
    the end. Sent chunked, with no Content-Length: a file that came up short of the length announced was a
    traceback in the terminal (h11's "Too little data") and a client left waiting."""
    with opened:
        while size > 0 and (chunk := opened.read(min(size, 1 << 16))):
            size -= len(chunk)
            yield chunk


def sent(body: bytes, media: str, headers: Mapping[str, str]) -> Response:
    """An answer made in memory (state.json, a card's picture, the design report), handed to the connection
    SENT_CHUNK bytes at a time, each once the client took the ones before: handed whole, a client that reads
    nothing held a copy of all of it in the server's memory, and 700 such requests for the state.json of a game
    of 10,000 cards with errors (4 MB) took 1.8 GB."""
    async def chunks() -> AsyncIterator[bytes]:
        for start in range(0, len(body), SENT_CHUNK):
            yield body[start:start + SENT_CHUNK]
    return StreamingResponse(chunks(), media_type=media, headers={**headers, "Content-Length": str(len(body))})


class StateBody:
    """state.json's bytes for the state a preview has now, encoded once for all the requests for it (in a thread,
    shared): encoded anew for each request in the server's event loop, 4 MB of a game's 20,000 errors held every
    other page of the preview 0.16 s per request. Used from the event loop only."""

    def __init__(self) -> None:
        self.of: dict[str, Any] | None = None  # the state encoded (kept: the next one is told by identity)
        self.body: asyncio.Future[bytes] | None = None

    def of_state(self, state: dict[str, Any]) -> "asyncio.Future[bytes]":
        if self.body is None or self.of is not state:
            self.of = state
            self.body = asyncio.get_running_loop().run_in_executor(None, _json_bytes, state)
        return self.body


def _json_bytes(state: dict[str, Any]) -> bytes:
    """The state as Starlette's JSONResponse wrote it."""
    return json.dumps(state, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")


def _servable(parts: tuple[str, ...]) -> bool:
    """Whether a path inside the project, as its parts, lies in a served folder with no hidden part ('..'
    included)."""
    return bool(parts) and parts[0] in SERVED_FOLDERS and not hidden_part(parts)


class Latest(Generic[Drawing]):
    """One drawing at a time of something made from files that may change (a game's design report): each
    caller gets a drawing begun after it asked, so it shows the files as they were then or later, or one made
    from the files as `state()` says they are when that drawing's turn comes (None: it cannot say); the callers
    who ask while one is being drawn share the next one (or that one, when the files are still as it began
    with). Without `state`, every ask after a drawing began draws anew: any web page can ask the preview for a
    game's report, in a loop, and each request drew it again (25 s of a core for DinoSpan's), the files
    unchanged. A caller is handed a future (`ask`), and the drawings are made by one thread of their own: a
    caller waiting held a thread of the server's pool, and 60 requests for a report being drawn took every one
    of its 40, so that every other page of the preview waited for that drawing to end."""

    def __init__(self, draw: Callable[[], Drawing], state: Callable[[], Hashable | None] | None = None) -> None:
        self.draw, self.state = draw, state or (lambda: None)
        self.lock = threading.Lock()  # held only to hand out and take up the next drawing, never while drawing
        self.next: Future[Drawing] | None = None  # the drawing the callers asking now share, not begun yet
        self.drawing = False  # whether the thread drawing them runs
        self.drawn: Drawing | None = None
        self.drawn_from: Hashable | None = None  # the state the drawing kept began with; None: none is kept

    def ask(self) -> "Future[Drawing]":
        """The drawing this caller gets, to be waited for (it never waits here)."""
        with self.lock:
            if self.next is None:
                self.next = Future()
            asked = self.next
            if not self.drawing:
                self.drawing = True
                threading.Thread(target=self._draw_all, name="pnp-latest", daemon=True).start()
        return asked

    def get(self) -> Drawing:
        return self.ask().result()

    def _draw_all(self) -> None:
        """The drawings asked for, one at a time, until none is: the files' state read once as each begins."""
        while True:
            with self.lock:
                asked, self.next = self.next, None
                if asked is None:
                    self.drawing = False
                    return
            if not asked.set_running_or_notify_cancel():
                continue
            try:
                now = self.state()
                if now is None or now != self.drawn_from:
                    self.drawn_from = None  # (nothing is kept until a drawing ends: one that raised is not)
                    self.drawn = self.draw()
                    self.drawn_from = now
                asked.set_result(cast(Drawing, self.drawn))
            except BaseException as e:  # noqa: BLE001 - handed to every caller sharing this drawing
                asked.set_exception(e)


def _said_if_failed(watcher: "asyncio.Task[None]") -> None:
    """A line in the terminal when the watcher ends in an error: it ended with not a word (until the server
    stopped), and the pages showed no edit again while they said the game as it was."""
    if not watcher.cancelled() and watcher.exception() is not None:
        error = watcher.exception()
        # (escaped: the error names a folder of the game's, whose name may hold an escape sequence)
        print(printable(f"pnp serve: the watch of the games' files ended ({type(error).__name__}: {error}): edits "
                        "are no longer shown; restart pnp serve"), file=sys.stderr, flush=True)


class Hub:
    """The previews being served, their refresh loops and the pages listening for updates."""

    def __init__(self, project: "Project", games: Iterable[str], on_refresh: "OnRefresh | None" = None) -> None:
        self.project, self.games = project, list(games)
        self.on_refresh = on_refresh or (lambda game, state: None)
        self.previews = {g: Preview(project, g) for g in self.games}
        self.listeners: dict[str, set[asyncio.Queue[int]]] = {g: set() for g in self.games}
        self.dirty: dict[str, asyncio.Event] = {}  # game -> asyncio.Event, once its loop runs
        self.opened: set[str] = set()  # games whose page was opened: only those are checked and drawn
        self.tasks: list[asyncio.Task[None]] = []
        self.stop: asyncio.Event | None = None

    def start(self) -> None:
        """Start each game's refresh loop and the watcher (inside the server's event loop)."""
        self.stop = asyncio.Event()
        for game in self.games:
            self.dirty[game] = asyncio.Event()
            self.tasks.append(asyncio.create_task(self._loop(game)))
        if len(self.games) == 1:
            self.open(self.games[0])
        watcher = asyncio.create_task(watch(self.project, self.games, self.changed, self.stop))
        watcher.add_done_callback(_said_if_failed)
        self.tasks.append(watcher)

    async def close(self) -> None:
        if self.stop is not None:
            self.stop.set()
        for preview in self.previews.values():  # before waiting for any: each refresh under way leaves off now
            preview.stop()
        for task in self.tasks:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for preview in self.previews.values():
            preview.close()

    def open(self, game: str) -> None:
        """A page of the game is open: check and draw it now, and from now on whenever its files change."""
        if game not in self.opened and game in self.dirty:
            self.opened.add(game)
            self.dirty[game].set()

    def changed(self, games: Iterable[str]) -> None:
        for game in games:
            if game in self.opened:
                self.dirty[game].set()

    async def _loop(self, game: str) -> None:
        preview, dirty = self.previews[game], self.dirty[game]
        loop = asyncio.get_running_loop()

        def first(state: dict[str, Any]) -> None:  # the edited cards drawn: pages hear of it before the rest
            loop.call_soon_threadsafe(self.notify, game)

        while True:
            await dirty.wait()
            dirty.clear()
            try:
                state = await asyncio.to_thread(preview.refresh, first, dirty.is_set)
                if dirty.is_set() and state["status"] == "checking":  # left off for a newer save
                    continue
                self.on_refresh(game, state)
                self.notify(game)
                if not dirty.is_set() and not preview.closing and await asyncio.to_thread(preview.refresh_book):
                    self.notify(game)
            except Exception as e:  # noqa: BLE001 - the next save tries again; the page keeps what it had
                # said as a failed design report is (_failure_said): raw, `{e}` printed a game's escape sequences
                # and a message's pasted marks as they were, and its words uncut
                print(f"pnp serve: {_failure_said(e, f'{game}: refresh')}", file=sys.stderr, flush=True)

    def end_streams(self) -> None:
        """The server is stopping: every page's event stream ends now, its answer complete. Left open, the
        server waited for it a second, then cancelled it: a traceback in the terminal for each open page at
        every Ctrl-C."""
        for queues in self.listeners.values():
            for queue in list(queues):
                queue.put_nowait(ENDED)

    def notify(self, game: str) -> None:
        generation = self.previews[game].generation
        for queue in list(self.listeners[game]):
            queue.put_nowait(generation)

    async def events(self, game: str, request: "Request") -> AsyncIterator[str]:
        queue: asyncio.Queue[int] = asyncio.Queue()
        self.listeners[game].add(queue)
        try:
            yield f"event: update\ndata: {self.previews[game].generation}\n\n"
            while not await request.is_disconnected():
                try:
                    generation = await asyncio.wait_for(queue.get(), KEEP_ALIVE)
                except TimeoutError:
                    yield ": still here\n\n"
                    continue
                if generation == ENDED:
                    return
                yield f"event: update\ndata: {generation}\n\n"
        finally:
            self.listeners[game].discard(queue)


def _static(name: str) -> "Traversable":
    return resources.files("pnp.serve").joinpath("static", name)


def is_address(name: str) -> bool:
    return _address(name) is not None


def _address(name: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The IP address `name` writes, or None for a name."""
    try:
        return ipaddress.ip_address(name)
    except ValueError:
        return None


def exposure(host: str, bound: str) -> str | None:
    """The warning for listening on `host`, whose socket is bound to the address `bound` (getsockname), or None
    when that address is this computer's only (a loopback address). The bound address, not the text given, is
    what tells: 127.1, 2130706433 and ::ffff:127.0.0.1 are loopback, which ipaddress does not read them as
    (they were warned of as reachable from the network), and 0 is every address."""
    if _is_loopback(_address(bound.split("%")[0])):
        return None
    return (f"warning: --host {printable(host)} makes the preview reachable from the network: anyone who can reach this "
            "computer can see the games and read the project's files under output/, cards/, layouts/ and fonts/ "
            "(without --host it listens on this computer only)")


def _is_loopback(address: ipaddress.IPv4Address | ipaddress.IPv6Address | None) -> bool:
    """Whether `address` reaches this computer only: a loopback address, also written as IPv6 maps IPv4's
    (::ffff:127.0.0.1, which ipaddress before Python 3.13 does not read as loopback)."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address is not None and address.is_loopback


def not_a_host_name(name: str) -> bool:
    """Whether an --allow-host value could never match a Host header (HostCheck reads a name without its port):
    'preview.lan:8000' or 'http://preview.lan' was taken, and the page opened by that name was refused (400)
    with no word of why."""
    return not is_address(name.strip().strip("[]")) and host_name(name) is None  # (any address is answered)


def allowed_names(host: str, allow: Iterable[str] = ()) -> frozenset[str]:
    """The host names the app answers besides IP addresses: localhost, the name it listens on and the names
    the user allowed, as host_name writes them."""
    names = (host_name(n) for n in (*LOCAL_NAMES, _ascii_form(host), *allow) if not is_address(n.strip().strip("[]")))
    return frozenset(name for name in names if name is not None)


def _ascii_form(host: str) -> str:
    """--host as a browser's Host header writes it: a name of letters past ASCII in its IDNA form (xn--...), the
    form the system looked it up in. Read as typed, it matched no Host header: `--host jürgens-mac.local`
    listened, and every page opened by the address it printed was refused (400, 'Invalid host header')."""
    try:
        return host if host.isascii() else host.strip().encode("idna").decode("ascii")
    except UnicodeError:  # (no IDNA form: the system could not have looked it up either)
        return host


def host_name(name: str) -> str | None:
    """`name` as HostCheck compares names (a Host header's, an --allow-host or --host value): spaces around it,
    its case and a final dot left out; None when no Host header could write it as a name (a port, a scheme, an
    address in brackets, or a name with an empty label: '.', '..' or 'a..b', which DNS cannot write and which
    were read as the empty name). The one reading of a name, so that the names allowed and the names checked
    against them are read alike."""
    found = HOST_HEADER.fullmatch(name.strip())
    if found is None or found["name"] is None or found.end("name") != len(name.strip()):
        return None
    written = found["name"].lower()
    written = written[:-1] if written.endswith(".") else written  # the root's dot, one only
    return None if "" in written.split(".") else written


class HostCheck:
    """Answers only requests whose Host header is an IP address or an allowed name, always (also when
    listening on every address): a page of another site that renamed itself to this computer through DNS (DNS
    rebinding) still sends its own name, and gets 400. An address cannot be renamed, so any is allowed."""

    def __init__(self, app: ASGIApp, names: frozenset[str]) -> None:
        self.app, self.names = app, names

    def allows(self, header: str) -> bool:
        found = HOST_HEADER.fullmatch(header)
        if found is None:
            return False
        if found["address"] is not None:
            return is_address(found["address"])
        return host_name(found["name"]) in self.names or is_address(found["name"])

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and not self.allows(Headers(scope=scope).get("host", "")):
            await PlainTextResponse("Invalid host header", status_code=400)(scope, receive, send)
            return
        await self.app(scope, receive, send)


# another origin's fetch metadata (Sec-Fetch-Site): 'same-site' is another port of this computer too (a page
# any other local server shows), which is no more the preview's than a site on the web
OTHER_SITES = ("cross-site", "same-site")
# every answer: never framed by another page (clickjacking), never read by another origin's <img>, <script> or
# <link> (Cross-Origin-Resource-Policy), never guessed by the browser as another type than said (nosniff)
GUARD_HEADERS = ((b"x-frame-options", b"DENY"), (b"content-security-policy", b"frame-ancestors 'none'"),
                 (b"cross-origin-resource-policy", b"same-origin"), (b"x-content-type-options", b"nosniff"))


class OwnPagesOnly:
    """Answers another site's page (a web page open in the same browser, which may ask anything of this
    computer's addresses) only when it opens one of the preview's pages whole, as a link followed: asked from
    that page's <img>, <script>, <iframe>, fetch or EventSource, a game's design report was drawn (25 s of a
    core for DinoSpan's), every game of the project checked and drawn (and again at every save), and the
    pictures of cards/ told apart from missing files by their loading. Told by the browser's fetch metadata
    (Sec-Fetch-Site, -Mode, -Dest) and, where a browser sends none, by an Origin other than the preview's.
    (Every answer carries GUARD_HEADERS: see Guarded.)"""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    @staticmethod
    def refused(scope: Scope) -> bool:
        headers = Headers(scope=scope)
        opened_whole = headers.get("sec-fetch-mode") == "navigate" and headers.get("sec-fetch-dest") == "document"
        if headers.get("sec-fetch-site") in OTHER_SITES and not opened_whole:
            return True
        origin = headers.get("origin")
        own = f"{scope.get('scheme', 'http')}://{headers.get('host', '')}"
        return origin is not None and origin.lower() != own.lower()  # ('null' too: a sandboxed frame's)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.refused(scope):
            answer = PlainTextResponse("the preview answers its own pages only: another site's page asked", 403)
            await answer(scope, receive, send)
            return
        await self.app(scope, receive, send)


class Guarded:
    """Adds GUARD_HEADERS to every answer of the app, the outermost middleware's refusals too: added by
    OwnPagesOnly alone, the 400 of a Host header refused (DNS rebinding) and the 400/413 of a request with a body
    went without them, framable by any page and open to the browser's type guessing."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def guarded(message: Any) -> None:
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message.get("headers", [])}
                message["headers"] = [*message.get("headers", []),
                                      *((name, value) for name, value in GUARD_HEADERS if name not in names)]
            await send(message)

        await self.app(scope, receive, guarded)


REQUEST_DEADLINE = 10.0  # seconds a connection has to send a whole request, from its opening or previous answer
# connections open at once, past which a request is answered 503 at once: 9,000 pages' event streams held 350 MB
# and a request for the page waited 26 s (a few pages open a few each)
MAX_CONNECTIONS = 1000
# descriptors a connection may take: its socket, the file /files/ sends it, and a socket of a connection past the
# cap waiting for its 503 (RequestDeadline keeps at most as many of those as connections served)
FILES_PER_CONNECTION = 3
RESERVED_FILES = 256  # descriptors kept for all else: the games' files read, the watcher, fonts, Ghostscript's pipes
MAX_REQUEST_BODY = 64 * 1024  # what a request may send before it is refused unread (the preview takes none)


class NoRequestBody:
    """Refuses every request that sends a body (every route of the preview is a GET) once its body has come,
    and answers nothing to one whose body is malformed. uvicorn calls the app as soon as the headers are in:
    answered at once while a broken chunked body was still arriving, the app's answer met the connection
    uvicorn had closed with its own 400, a traceback in the terminal for each such request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope) if scope["type"] == "http" else None
        if headers is None or (headers.get("content-length", "0").strip() in ("", "0")
                               and "transfer-encoding" not in headers):
            await self.app(scope, receive, send)
            return
        received, more = 0, True
        while more and received <= MAX_REQUEST_BODY:
            message = await receive()
            if message["type"] == "http.disconnect":  # gone, or refused by the server itself: nothing to answer
                return
            received += len(message.get("body", b""))
            more = message.get("more_body", False)
        await PlainTextResponse("the preview takes no request body", status_code=413 if more else 400)(
            scope, receive, send)


def create_app(project: "Project", games: Iterable[str], host: str = "127.0.0.1", on_refresh: "OnRefresh | None" = None,
               allow_hosts: Iterable[str] = ()) -> Starlette:
    """The ASGI app previewing `games` of `project`, listening on `host` and answering requests for its
    addresses, localhost, `host` and the names in `allow_hosts`; `on_refresh(game, state)` after each check of
    a game."""
    hub = Hub(project, games, on_refresh)
    reports: dict[str, Latest[tuple[bytes | None, str]]] = {
        game: Latest(partial(_design_report, project, game), partial(inputs_state, project, game))
        for game in hub.games}

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        hub.start()
        try:
            yield
        finally:
            await hub.close()

    def preview_of(request: "Request") -> Preview | None:
        return hub.previews.get(request.path_params["game"])

    titles: dict[str, tuple[object, str]] = {}  # game -> (its game.yaml's stat, the title read from it)

    def index(request: "Request") -> Response:  # sync: reading game.yaml runs in Starlette's thread pool
        if len(hub.games) == 1:
            return RedirectResponse(game_address(hub.games[0]))
        links = "".join(f'<li><a href="{html.escape(game_address(g))}">{html.escape(_title(project, g, titles))}'
                        f"</a> <code>{html.escape(g)}</code></li>" for g in hub.games)
        return HTMLResponse(_static("index.html").read_text(encoding="utf-8").replace("<!--games-->", links))

    async def page(request: "Request") -> Response:
        if preview_of(request) is None:
            return NOT_FOUND
        return HTMLResponse(_static("page.html").read_text(encoding="utf-8"))

    bodies = {game: StateBody() for game in hub.games}

    async def state(request: "Request") -> Response:
        preview = preview_of(request)
        if preview is None:
            return NOT_FOUND
        hub.open(request.path_params["game"])
        # (shielded: a request given up would cancel the encoding the others share)
        body = await asyncio.shield(bodies[request.path_params["game"]].of_state(preview.state))
        return sent(body, "application/json", {"Cache-Control": "no-store"})

    async def events(request: "Request") -> Response:
        if preview_of(request) is None:
            return NOT_FOUND
        hub.open(request.path_params["game"])
        return StreamingResponse(hub.events(request.path_params["game"], request), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    async def image(request: "Request") -> Response:
        preview, digest = preview_of(request), request.path_params["digest"]
        found = preview.store.get(digest) if preview is not None and DIGEST.match(digest) else None
        if found is None:
            return NOT_FOUND
        return sent(found.png, "image/png", {"Cache-Control": "max-age=31536000, immutable"})

    def detail(request: "Request") -> Response:  # sync: drawing and rasterising run in Starlette's thread pool
        preview, digest = preview_of(request), request.path_params["digest"]
        found = preview.detail(digest) if preview is not None and DIGEST.match(digest) else None
        if found is None:
            return NOT_FOUND
        return sent(found.png, "image/png", {"Cache-Control": "max-age=31536000, immutable"})

    def book_page(request: "Request") -> Response:  # sync: rasterising runs in Starlette's thread pool
        preview = preview_of(request)
        book = preview.book if preview is not None else None
        page = request.path_params["page"]
        n = int(page) if PAGE_NUMBER.fullmatch(page) else -1
        if preview is None or book is None or book.digest != request.path_params["digest"] or not 0 <= n < len(book.sizes):
            return NOT_FOUND
        found = book.page(n, preview.store)
        if found is None:
            return NOT_FOUND
        return sent(found.png, "image/png", {"Cache-Control": "max-age=31536000, immutable"})

    async def design_report(request: "Request") -> Response:  # drawn by its Latest's own thread, not the pool's
        """The game's design report (`pnp report`), drawn in memory from its data as it is now."""
        game = request.path_params["game"]
        if game not in reports:
            return NOT_FOUND
        try:  # (shielded: a request given up would cancel the drawing the others share)
            pdf, first = await asyncio.shield(asyncio.wrap_future(reports[game].ask()))
        except Exception as e:  # noqa: BLE001 - one line in the terminal and on the page, the server goes on
            said = _failure_said(e, f"{game}: design report")
            print(f"pnp serve: {said}", file=sys.stderr, flush=True)
            return PlainTextResponse(f"the design report could not be drawn: {said}", status_code=500)
        if pdf is None:
            return PlainTextResponse(f"no design report while the data has errors; the first:\n{first}",
                                     status_code=409)
        return sent(pdf, "application/pdf", {"Cache-Control": "no-store"})

    def files(request: "Request") -> Response:
        real = project_file(project, request.path_params["path"])
        opened = served(project, real)
        if real is None or opened is None:
            return NOT_FOUND
        media, headers = served_as(real)
        return StreamingResponse(_chunks(opened, os.fstat(opened.fileno()).st_size), media_type=media,
                                 headers=headers)

    def source(request: "Request") -> Response:
        rel = request.path_params["path"]
        real = project_file(project, rel)
        opened = served(project, real) if real is not None and real.suffix in TEXT_SUFFIXES else None
        if opened is None:
            return NOT_FOUND
        size = os.fstat(opened.fileno()).st_size
        if size > MAX_SOURCE_BYTES:
            opened.close()
            return NOT_FOUND
        # (made as it is sent, a piece at a time: the page of a 5 MB file is up to 30 MB, and 60 clients that read
        # nothing of it each held a copy of it, 2.7 GB)
        return StreamingResponse(_encoded(_source_page(rel, _source_lines(_chunks(opened, size)))),
                                 media_type="text/html; charset=utf-8")

    routes = [
        Route("/", index),
        Route("/g/{game}/", page),
        Route("/g/{game}/state.json", state),
        Route("/g/{game}/events", events),
        Route("/g/{game}/img/{digest}.png", image),
        Route("/g/{game}/detail/{digest}.png", detail),
        Route("/g/{game}/book/{digest}/{page}.png", book_page),
        Route("/g/{game}/report.pdf", design_report),
        Route("/files/{path:path}", files),
        Route("/source/{path:path}", source),
        Mount("/static", StaticFiles(packages=[("pnp.serve", "static")]), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan,
                    middleware=[Middleware(Guarded),  # every answer, refusals included
                                Middleware(NoRequestBody),  # before all else: the body has come before any answer
                                Middleware(HostCheck, names=allowed_names(host, allow_hosts)),
                                Middleware(OwnPagesOnly)])
    app.state.hub = hub
    return app


def _failure_said(error: Exception, doing: str) -> str:
    """The one line a drawing's failure is said in, on the terminal and on the page, as the command line says
    it (report.Diagnostic: its place, its message bounded, the marks of a part pasted taken out and every control
    character escaped): said raw, `{e}` printed a message's pasted marks and a game's escape sequences as they
    were, and its words uncut."""
    failure = error if isinstance(error, PnpError) else unforeseen(error, doing)
    return str(Diagnostic("error", failure.message, failure.mark))


def _design_report(project: "Project", game: str) -> tuple[bytes | None, str]:
    """(the game's design report as PDF bytes, or None while its data has errors; the first of them)."""
    from ..insight.tables import game_report_pdf
    from ..report import Report

    found = Report(project.root)
    pdf = game_report_pdf(project, game, found)
    return pdf, (str(found.sorted()[0]) if found.diagnostics else "the data has errors")


def _title(project: "Project", game: str, known: dict[str, tuple[object, str]]) -> str:
    """A game's title as game.yaml gives it (its id when that cannot be read), read again only once the file
    has changed (`known` holds what was read): the index read every game.yaml on every request, in the server's
    event loop, and one of 8 MB held every page of the preview for 10 s."""
    path = project.cards / game / "game.yaml"
    try:
        stat = os.stat(path)
        seen: object = (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
    except OSError:
        seen = None
    if game in known and known[game][0] == seen:
        return known[game][1]
    try:
        meta = load_file(project.inside(path), game, project.root)
        value = meta.get("title") if isinstance(meta, Mapping) else None
        # a title as validate takes it (text or a number, 0 too), else the id as `pnp list` says it: a refused
        # list or mapping was shown as Python writes it ("{'a': [1, 2]}") and 'title: 0' as the game's id
        valid = isinstance(value, (str, int, float)) and not isinstance(value, bool) and str(value).strip()
        title = shown_title(str(value)) if valid else game
    except PnpError:
        title = game
    known[game] = seen, title
    return title


HIDING_RUN = re.compile(f"(?:{HIDES_TEXT.pattern})+")  # characters that hide text, one after another


def _source_line(line: str) -> str:
    """One line of a source page as HTML: escaped, each character that hides or reorders the text around it
    (report.HIDES_TEXT) shown as its escape, marked: a U+202E in a YAML comment reversed how the rest of its line
    displayed, so the page showed a line other than the file's (a tab, a form feed and the like are shown as they
    are: they hide nothing). A run of them is marked once: marked one by one, a file of 5 MB of U+202E made a page
    of 65 MB (5 s of the server's, and three such requests at once 840 MB)."""
    return HIDING_RUN.sub(lambda m: f'<span class="hidden-char">{"".join(map(escaped, m[0]))}</span>',
                          html.escape(line))


def _source_lines(chunks: Iterable[bytes]) -> Iterator[tuple[str, bool]]:
    """A text file's lines as messages count them (at \\r\\n, \\r or \\n, not at \\f or \\x1c as str.splitlines
    does), decoded as read, in pieces of at most SOURCE_PIECE characters: (a piece, whether its line ends after
    it). A line end at the end of the file begins no line; an empty file is one empty line."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    pending, closed = "", False  # closed: the last piece given ended its line
    for chunk in itertools.chain(chunks, [None]):
        pending += decoder.decode(chunk or b"", final=chunk is None)
        held = "\r" if chunk is not None and pending.endswith("\r") else ""  # maybe the first half of a \r\n
        *lines, pending = LINE_END.split(pending.removesuffix(held))
        for line in lines:
            yield from _pieces(line, True)
            closed = True
        while len(pending) > SOURCE_PIECE:  # a long line is given as it comes
            yield pending[:SOURCE_PIECE], False
            pending, closed = pending[SOURCE_PIECE:], False
        pending += held
    if pending or not closed:
        yield from _pieces(pending, True)


def _pieces(line: str, ends: bool) -> Iterator[tuple[str, bool]]:
    for start in range(0, max(len(line), 1), SOURCE_PIECE):
        yield line[start:start + SOURCE_PIECE], ends and start + SOURCE_PIECE >= len(line)


def _source_page(rel: str, lines: Iterable[tuple[str, bool]]) -> Iterator[str]:
    """A data or layout file (its lines as _source_lines gives them) as a page with numbered lines, each line an
    anchor (#L12) so a message can link to it, in pieces; its first MAX_SOURCE_LINES lines only, the rest named
    by a link to the whole file (5 MB of line breaks made a page of 460 MB, 1.4 GB of memory and 13 s for one
    request)."""
    yield (f"<!doctype html><meta charset=utf-8><title>{html.escape(rel)}</title>"
           '<link rel="stylesheet" href="/static/page.css"><body class="source">'
           f"<h1><code>{html.escape(rel)}</code></h1><table>")
    pieces, n, begins = iter(lines), 0, True  # begins: the next piece begins a line
    for piece, ends in pieces:
        if begins and n == MAX_SOURCE_LINES:
            more = ends + sum(ends for _, ends in pieces)  # every line's last piece ends it
            yield (f'<tr><td class="n"></td><td>… {more:,} more line{"s" * (more != 1)}: '
                   f'<a href="/files/{html.escape(quote(rel))}">the whole file</a></td></tr>')
            break
        if begins:
            n += 1
            yield f'<tr id="L{n}"><td class="n"><a href="#L{n}">{n}</a></td><td><pre>'
        yield _source_line(piece) + ("</pre></td></tr>" if ends else "")
        begins = ends
    yield "</table>"


def _encoded(pieces: Iterable[str]) -> Iterator[bytes]:
    """Pieces of a page as UTF-8, joined into chunks of about SENT_CHUNK bytes."""
    batch: list[str] = []
    size = 0
    for piece in pieces:
        batch.append(piece)
        size += len(piece)
        if size >= SENT_CHUNK:
            yield "".join(batch).encode("utf-8")
            batch, size = [], 0
    yield "".join(batch).encode("utf-8")


def summary(game: str, state: dict[str, Any]) -> str:
    """A refresh in one line, for the terminal: the time, the game, errors and the first of them."""
    errors = [p for p in state["problems"] if p["severity"] == "error"]
    warnings = len(state["problems"]) - len(errors)
    said = (f"{len(errors)} error{'s' * (len(errors) != 1)}" if errors else "valid") + \
        (f", {warnings} warning{'s' * (warnings != 1)}" if warnings else "")
    first = errors[0] if errors else None
    where = f"{first['where']['at']}: " if first and first["where"] else ""
    # printable as every message pnp prints (report.Diagnostic): the page's state holds them as found
    return printable(f"{time.strftime('%H:%M:%S')} {game}: {said} ({state['seconds']:.2f} s)" +
                     (f"; {where}{first['message']}" if first else ""))


def server(project: "Project", games: Iterable[str], host: str = "127.0.0.1", port: int = 8000,
           on_refresh: "OnRefresh | None" = None,
           allow_hosts: Iterable[str] = ()) -> "tuple[uvicorn.Server, socket.socket, str]":
    """(uvicorn Server, its listening socket, the page's address) for `games`; `port` 0 picks a free one;
    `allow_hosts` as create_app's."""
    import socket

    import uvicorn

    # an IPv6 address as a URL writes it ([::1], as the address pnp prints) is that address: given to the
    # system, it was looked up as a host name (11 s without a network) and refused
    host = host[1:-1] if host.startswith("[") and host.endswith("]") and is_address(host[1:-1]) else host
    # a name's final dot (the DNS root, which host_name and a browser's Host header take as the name without
    # it) is not looked up by the system's hosts file: --host localhost. was refused, 'Name or service not known'
    host = (host_name(host) or host) if host.endswith(".") and not is_address(host) else host
    host = _dotted(host)
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)  # connections wait from now on, before uvicorn serves them
    except OSError:
        sock.close()
        raise
    # uvicorn's errors only: its warnings are about requests, which any page the browser opens may send (a
    # WebSocket to the preview printed two lines in its terminal, one telling the user to pip install a library)
    config = uvicorn.Config(create_app(project, games, host, on_refresh, allow_hosts), log_level="error",
                            timeout_graceful_shutdown=1, lifespan="on", http=_request_deadline_protocol(),
                            limit_concurrency=connection_limit())
    shown = f"[{host}]" if ":" in host else host
    _quiet_stops()
    return _stopping_server(uvicorn.Server)(config), sock, f"http://{shown}:{sock.getsockname()[1]}/"


def _dotted(host: str) -> str:
    """An IPv4 address written short (127.1, 2130706433, 0x7f.1, 0), which the system listens on as that address
    but HostCheck reads as a name, in its usual dotted form; anything else as given. Printed as typed, the
    preview's address was refused ('Invalid host header') to every client that sends the Host as written
    (Python's urllib, wget; a browser and curl rewrite it)."""
    import socket
    import string

    # (only the digits, dots and 0x such an address is written in: the system's inet_aton takes what follows a
    # space for no part of it, so '127.1 evil' would pass as 127.0.0.1)
    if is_address(host) or not host or not set(host) <= set(string.hexdigits + "xX."):
        return host
    try:
        return socket.inet_ntoa(socket.inet_aton(host))
    except OSError:
        return host


def connection_limit() -> int:
    """The connections served at once (MAX_CONNECTIONS, fewer when the process may not open the files they take):
    the soft limit on open files raised towards the hard one as far as they need, then the connections that fit in
    it. MAX_CONNECTIONS assumed 20,000 files; at a desktop's usual 1,024 (256 on macOS), 990 downloads left the
    server none: a traceback in the terminal for each connection it could not accept (36,000 lines), a 500 for
    the page's style sheet and a 404 for a file that was there."""
    try:
        import resource
    except ImportError:  # (Windows: no such limit)
        return MAX_CONNECTIONS
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = RESERVED_FILES + FILES_PER_CONNECTION * MAX_CONNECTIONS
    allowed = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < allowed:
        with contextlib.suppress(ValueError, OSError):  # (a hard limit the system caps lower: macOS's OPEN_MAX)
            resource.setrlimit(resource.RLIMIT_NOFILE, (allowed, hard))
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft == resource.RLIM_INFINITY or soft >= wanted:
        return MAX_CONNECTIONS
    return max(1, (soft - min(RESERVED_FILES, soft // 2)) // FILES_PER_CONNECTION)


def _request_deadline_protocol() -> "type[asyncio.Protocol]":
    """uvicorn's HTTP/1.1 protocol (h11) closing a connection that has not sent a whole request within
    REQUEST_DEADLINE seconds of opening, or of its previous answer. uvicorn waits for a request's head and body
    for good (its keep-alive timeout ends at the first byte): connections that sent half a request head and
    nothing more were all held open, 3,000 of them after 30 s, until the server ran out of files to open (20,000
    here) and could read no game. An answer under way (an event stream) is never cut."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class RequestDeadline(H11Protocol):
        deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)  # type: ignore[arg-type]
            # past twice the cap, closed at once: a connection past it is answered 503 only once its request has
            # come, and until then held a descriptor (connection_limit counts on this)
            limit = self.limit_concurrency
            if limit is not None and len(self.connections) > 2 * limit:
                transport.close()
                return
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self.deadline is not None:
                self.deadline.cancel()
            super().connection_lost(exc)

        def _arm(self) -> None:
            if self.deadline is not None:
                self.deadline.cancel()
            self.deadline = self.loop.call_later(REQUEST_DEADLINE, self._late)

        def _late(self) -> None:
            if not self.transport.is_closing() and self.conn.their_state is not h11.DONE:  # still being sent
                self.transport.close()

    return RequestDeadline


class QuietStop(logging.Filter):
    """uvicorn's own lines about the answers it cancels as it stops (a download to a client that reads nothing
    cannot end by itself): a line and a traceback in the terminal at each Ctrl-C with such a client. uvicorn
    cancels an answer only when it stops, so these are never an error of the preview."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        text = str(record.msg)
        # a second Ctrl-C cancels the app's lifespan, waiting for the end: Starlette hands uvicorn the traceback
        # as text, which it printed whole ('ERROR: Traceback ... CancelledError')
        cancelled = text.startswith("Traceback") and text.rstrip().rpartition("\n")[2].endswith("CancelledError")
        return not (isinstance(error, asyncio.CancelledError) or text.startswith("Cancel %s running task") or cancelled)


def _quiet_stops() -> None:
    """QuietStop on uvicorn's error log, once."""
    log = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, QuietStop) for f in log.filters):
        log.addFilter(QuietStop())


def _stopping_server(base: "type[uvicorn.Server]") -> "type[uvicorn.Server]":
    """uvicorn's Server ending the pages' event streams when it begins to stop, before it waits for the
    requests under way to end (the app's lifespan is told only after that wait)."""

    class Stopping(base):  # type: ignore[valid-type,misc]
        async def shutdown(self, sockets: "list[socket.socket] | None" = None) -> None:
            self.config.app.state.hub.end_streams()
            await super().shutdown(sockets)

        taken = False  # the stopping signals are this server's (capture_signals, around the whole run)

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            """Ctrl-C, SIGTERM and SIGHUP (the terminal closed) stop the preview, from before its event loop
            starts till after it ends (serve takes them around run; uvicorn's own taking within is then
            nothing). uvicorn took Ctrl-C and SIGTERM inside the loop only: a Ctrl-C as the loop started landed
            in asyncio's handler, which cancels the task, and the cancellation was swallowed as uvicorn started:
            the preview ran on, Ctrl-C lost. pnp's SIGHUP raised KeyboardInterrupt inside the loop, which broke
            out of it unstopped, leaving asyncio's handler in place: a Ctrl-C a moment later ended pnp killed by
            SIGINT (exit -2). Nor is a signal raised again once stopped (uvicorn does, for its caller): it asked
            for this stop, which is done (exit 0, as for Ctrl-C)."""
            if self.taken or threading.current_thread() is not threading.main_thread():
                yield
                return
            numbers = [number for name in ("SIGINT", "SIGTERM", "SIGHUP")
                       if (number := getattr(signal, name, None)) is not None
                       and signal.getsignal(number) not in (signal.SIG_IGN, None)]  # (nohup's SIGHUP stays ignored)
            before = {number: signal.signal(number, self.handle_exit) for number in numbers}
            self.taken = True
            try:
                yield
            finally:
                self.taken = False
                for number, handler in before.items():
                    signal.signal(number, handler)

    return cast("type[uvicorn.Server]", Stopping)


def serve(project: "Project", games: Iterable[str], host: str = "127.0.0.1", port: int = 8000,
          on_ready: Callable[[str, str | None], None] | None = None, allow_hosts: Iterable[str] = ()) -> None:
    """Run the preview until Ctrl-C, saying each check of a game in a line. `on_ready(url, warning)` is called
    once the socket listens, with exposure()'s warning for the address it is bound to; `allow_hosts` as
    create_app's."""
    running, sock, url = server(project, games, host, port, lambda game, state: print(summary(game, state),
                                                                                       flush=True), allow_hosts)
    try:
        with running.capture_signals():  # (before asyncio's own Ctrl-C handler: see capture_signals)
            if on_ready:  # (a Ctrl-C once the URL is said stops the preview as any later one does)
                on_ready(url, exposure(host, sock.getsockname()[0]))
            running.run(sockets=[sock])
    except KeyboardInterrupt:  # (SIGTERM or SIGHUP as Python exits the loop, after the handlers are given back)
        pass
