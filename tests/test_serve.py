"""`pnp serve`: the preview's state, the files it refuses, the watcher's filter, a crash in one card, a broken
layout, Ctrl-C; and a browser (Playwright driving Debian's chromium) that watches a card change on save."""

import contextlib
import json
import logging
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from conftest import REPO, make_project, run, share_repo_assets
from pnp.errors import LayoutError
from pnp.printables import Studio
from pnp.project import Project
from pnp.report import Mark
from pnp.serve.app import GUARD_HEADERS, HostCheck, Latest, _title, allowed_names, create_app, exposure, project_file, served, server
from pnp.serve.preview import Preview, _where
from pnp.serve.watch import InputFilter, games_of

LOCAL = "http://127.0.0.1:8000"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture
def mini(tmp_path):
    return Project(make_project(tmp_path / "proj").resolve())


def shipped_copy(root, game):
    """A project holding a copy of one shipped game (and the shared icons)."""
    for folder in ("cards", "layouts"):
        shutil.copytree(REPO / folder / game, root / folder / game)
    share_repo_assets(root)
    return Project(root.resolve())


def wait_for(predicate, timeout=20.0, step=0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise AssertionError("timed out")


class Running:
    """The preview's uvicorn server in a thread of the test, on a free port."""

    def __init__(self, project, games):
        self.server, sock, self.url = server(project, games, "127.0.0.1", 0)
        self.hub = self.server.config.app.state.hub
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        wait_for(lambda: self.server.started)

    def stop(self):
        self.server.should_exit = True
        self.thread.join(10)
        assert not self.thread.is_alive()


@pytest.fixture
def running():
    servers = []

    def start(project, games):
        servers.append(Running(project, games))
        return servers[-1]

    yield start
    for s in servers:
        s.stop()


def _get(url, path):
    """GET through a raw socket, the path sent exactly as written (no client tidies up '..')."""
    host, port = url.split("//")[1].rstrip("/").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as conn:
        conn.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


# -- the preview without a server -------------------------------------------------------------------------
def test_preview_state_has_every_card_with_its_data_and_source(mini):
    # (a name is cut as the data is: one of 900,000 characters an alias gave 200 cards made a 184 MB state.json)
    from pnp.serve.preview import MAX_SHOWN_CHARS

    game = mini.root / "cards" / "mini" / "game.yaml"
    game.write_text(game.read_text().replace("name: {type: str, max_len: 20}", "name: {type: str}"))
    cards = mini.root / "cards" / "mini" / "cards.yaml"
    cards.write_text(cards.read_text().replace("name: Lion", f"name: {'L' * 30_000}", 1))
    preview = Preview(mini, "mini")
    state = preview.refresh()
    assert state["status"] == "ok" and state["problems"] == []
    deck = next(c for c in state["components"] if c["kind"] == "deck")
    card = state["cards"][deck["cards"][0]]
    assert card["id"] == "lion" and len(card["name"]) == MAX_SHOWN_CHARS
    assert card["source"]["file"] == "cards/mini/cards.yaml" and card["source"]["line"] > 0
    assert card["fields"]["id"] == card["id"]
    assert {f["side"] for f in card["faces"]} == {"front", "back"}
    assert all(preview.store.get(f["image"]).png.startswith(b"\x89PNG") for f in card["faces"])
    assert state["build"] is None
    (mini.root / "output" / "mini").mkdir(parents=True)
    (mini.root / "output" / "mini" / "mini-a4.pdf").write_bytes(b"%PDF-1.4\n")  # what `pnp build` names its kit
    assert preview.refresh()["build"] == "output/mini/mini-a4.pdf"
    outside = mini.root.parent / "outside.pdf"
    outside.write_bytes(b"%PDF-1.4\n")
    (mini.root / "output" / "mini" / "mini-a4.pdf").unlink()
    (mini.root / "output" / "mini" / "mini-a4.pdf").symlink_to(outside)  # a link out of the project: /files/ 404s
    assert preview.refresh()["build"] is None


def test_a_one_card_edit_renders_one_face_again(mini, monkeypatch):
    preview = Preview(mini, "mini")
    before = preview.refresh()
    drawn = []
    import pnp.serve.preview as module

    original = module.render_faces
    monkeypatch.setattr(module, "render_faces", lambda studio, faces, digests: (
        drawn.extend(f.printable.key for f in faces), original(studio, faces, digests))[1])
    data = mini.cards / "mini" / "cards.yaml"
    data.write_text(data.read_text().replace("name: Lion", "name: Big Lion", 1))  # not printed on the card
    assert preview.refresh()["cards"]["deck/lion"]["fields"]["name"] == "Big Lion" and drawn == []
    data.write_text(data.read_text().replace("Roars :star: loudly.", "Whispers softly.", 1))
    after = preview.refresh()
    assert drawn == [("deck", "front", 0, ())]  # one face: the back is unchanged
    lion = after["cards"]["deck/lion"]
    assert "Whispers softly." in lion["faces"][0]["text"]
    assert lion["faces"][0]["image"] != before["cards"]["deck/lion"]["faces"][0]["image"]
    assert lion["faces"][1]["image"] == before["cards"]["deck/lion"]["faces"][1]["image"]


def _fern_front_fails(monkeypatch: pytest.MonkeyPatch, error: Exception) -> None:
    """Drawing the fern's front raises `error`; every other face draws as usual."""
    draw = Studio.draw

    def failing(self, canvas, painter, printable, *args, **kwargs):
        if printable.item is not None and printable.item.get("id") == "fern" and printable.side == "front":
            raise error
        return draw(self, canvas, painter, printable, *args, **kwargs)

    monkeypatch.setattr(Studio, "draw", failing)


def test_a_crash_drawing_one_card_is_an_error_beside_it_not_a_dead_server(mini, monkeypatch):
    _fern_front_fails(monkeypatch, ZeroDivisionError("boom"))
    with TestClient(create_app(mini, ["mini"]), base_url=LOCAL) as client:
        state = wait_for(lambda: (s := client.get("/g/mini/state.json").json())["generation"] and s)
        assert state["status"] == "errors"
        problem = next(p for p in state["problems"] if "boom" in p["message"])
        assert problem["card"] == "deck/fern" and "ZeroDivisionError" in problem["message"]
        fern = state["cards"]["deck/fern"]
        assert fern["faces"][0]["image"] is None and fern["faces"][1]["image"]  # its back still drawn
        others = [c for k, c in state["cards"].items() if k.startswith("deck/") and k != "deck/fern"]
        assert others and all(f["image"] for c in others for f in c["faces"])
        assert client.get("/g/mini/").status_code == 200


def test_a_refusal_while_drawing_one_card_is_shown_as_the_command_line_says_it(mini, monkeypatch):
    _fern_front_fails(monkeypatch, LayoutError("text does not fit", Mark("layouts/mini/card.yaml", 9, 5)))
    preview = Preview(mini, "mini")
    state = preview.refresh()
    messages = [p["message"] for p in state["problems"]]
    problem = next(p for p in state["problems"] if "does not fit" in p["message"])
    assert problem["message"].startswith("text does not fit (printing"), messages
    assert problem["where"]["at"] == "layouts/mini/card.yaml:9:5" and problem["card"] == "deck/fern"
    assert not any("LayoutError" in m or "failed" in m for m in messages), messages


def test_faces_drawn_in_chunks_are_the_same_images_and_a_failing_face_costs_only_itself(mini, monkeypatch):
    whole = Preview(mini, "mini")
    cards = whole.refresh()["cards"]
    import pnp.serve.images as images

    monkeypatch.setattr(images, "CHUNKS", (1, 2))  # PDFs of 1, 2, 2... faces, rasterised while the next is drawn
    _fern_front_fails(monkeypatch, ValueError("no"))
    chunked = Preview(mini, "mini")
    state = chunked.refresh()
    assert [p["card"] for p in state["problems"]] == ["deck/fern"]
    faces = [(key, n) for key, card in cards.items() for n in range(len(card["faces"]))]
    assert len(faces) > 4
    for key, n in faces:
        face = state["cards"][key]["faces"][n]
        if (key, face["side"]) == ("deck/fern", "front"):
            assert face["image"] is None
        else:  # byte for byte the image of the faces drawn all in one PDF
            assert chunked.store.get(face["image"]).png == whole.store.get(cards[key]["faces"][n]["image"]).png


def test_the_gallery_holds_few_chunks_pdfs_open_at_once(mini, monkeypatch):
    import pnp.serve.images as images

    monkeypatch.setattr(images, "CHUNKS", (1, 1))  # a PDF a face: many chunks
    opened, held = [], []
    real = images._opened

    def counted(pdf: bytes):
        document = real(pdf)
        opened.append(document)
        held.append(sum(1 for d in opened if getattr(d, "raw", None) is not None))
        return document

    monkeypatch.setattr(images, "_opened", counted)
    state = Preview(mini, "mini").refresh()
    assert state["status"] == "ok" and len(opened) > 4
    assert max(held) <= images.MAX_OPEN_PDFS + 1  # (the one just opened, before the oldest is closed)
    assert all(d.raw is None for d in opened)  # each closed


def test_the_gallery_shows_small_images_and_a_face_is_drawn_large_when_the_detail_view_asks(mini):
    from pnp.serve.images import DPI, GALLERY_PX

    preview = Preview(mini, "mini")
    lion = preview.refresh()["cards"]["deck/lion"]["faces"][0]
    small = preview.store.get(lion["image"])
    assert small.size == tuple(lion["size"]) and small.size[0] <= GALLERY_PX[0] and small.size[1] <= GALLERY_PX[1]
    spent = preview._sources[lion["image"]][0].budget.spent
    big = preview.detail(lion["image"])
    assert big.png.startswith(b"\x89PNG") and "Roars" in big.text and big.text == small.text
    assert big.size == (round(63 / 25.4 * DPI), round(88 / 25.4 * DPI))  # the 63 x 88 mm card at DPI
    assert preview._sources[lion["image"]][0].budget.spent == spent  # the gallery paid for that drawing
    assert preview.detail(lion["image"]) is big  # drawn once
    fresh = Preview(mini, "mini")
    assert fresh.refresh()["cards"]["deck/lion"]["faces"][0]["image"] == lion["image"]
    assert fresh.detail(lion["image"]).png == big.png  # what a new preview draws, byte for byte
    assert preview.detail("0" * 32) is None

    data = mini.cards / "mini" / "cards.yaml"
    data.write_text(data.read_text().replace("Roars :star: loudly.", "Whispers softly.", 1))
    now = preview.refresh()["cards"]["deck/lion"]["faces"][0]["image"]
    assert preview.detail(lion["image"]) is None and "Whispers" in preview.detail(now).text  # the old one forgotten
    with TestClient(create_app(mini, ["mini"]), base_url=LOCAL) as client:
        state = wait_for(lambda: (s := client.get("/g/mini/state.json").json())["generation"] and s)
        face = state["cards"]["deck/lion"]["faces"][0]
        got = client.get(f"/g/mini/detail/{face['image']}.png")
        assert got.status_code == 200 and got.headers["content-type"] == "image/png"
        assert got.content == preview.detail(now).png
        assert client.get(f"/g/mini/detail/{'0' * 32}.png").status_code == 404
        assert client.get("/g/mini/detail/..%2fstate.png").status_code == 404


def test_the_detail_images_kept_are_capped_the_least_recently_asked_forgotten_and_drawn_again(mini, monkeypatch):
    """Every detail image asked for was kept while its face was shown: a 10,000-card game clicked through held
    about 0.5 GB."""
    from pnp.serve import images

    monkeypatch.setattr(images, "MAX_DETAILS", 2)
    preview = Preview(mini, "mini")
    cards = preview.refresh()["cards"]
    lion, fern, wolf = (cards[f"deck/{name}"]["faces"][0]["image"] for name in ("lion", "fern", "wolf"))
    first = preview.detail(lion)
    preview.detail(fern)
    assert preview.detail(lion) is first  # asked again: now the most recent
    preview.detail(wolf)
    kept = {d for d in (lion, fern, wolf) if images.DETAIL + d in preview.store}
    assert kept == {lion, wolf}  # fern, the least recently asked, forgotten
    assert preview.detail(fern).png == preview.detail(fern).png and preview.detail(fern).size == first.size


def test_a_detail_image_no_face_shows_is_answered_without_waiting_for_a_refresh(mini):
    """The detail view took the refresh lock before it looked at the digest: during a long refresh, made-up
    digests (any web page can ask for them) held the server's threads until it ended."""
    from pnp.serve.preview import REFRESH

    preview = Preview(mini, "mini")
    preview.refresh()
    with REFRESH, ThreadPoolExecutor(1) as pool:  # a refresh under way
        asked = pool.submit(preview.detail, "0" * 32)
        assert asked.result(timeout=10) is None


def test_a_card_that_fails_to_draw_keeps_its_last_good_image_marked_stale(mini, monkeypatch):
    preview = Preview(mini, "mini")
    good = preview.refresh()["cards"]["deck/fern"]["faces"][0]["image"]
    draw = Studio.draw

    def failing(self, canvas, painter, printable, *args, **kwargs):
        if printable.item is not None and printable.item.get("id") == "fern" and printable.side == "front":
            raise ValueError("no")
        return draw(self, canvas, painter, printable, *args, **kwargs)

    monkeypatch.setattr(Studio, "draw", failing)
    data = mini.cards / "mini" / "cards.yaml"
    data.write_text(data.read_text().replace("name: Fern\n", "name: Fern\n  text: new words\n", 1))
    for _ in range(2):  # and again after the next save
        face = preview.refresh()["cards"]["deck/fern"]["faces"][0]
        assert face["image"] == good and face["stale"]
    monkeypatch.undo()  # its detail image: drawn by the studio that drew its last good image, the old words
    detail = preview.detail(good)
    assert detail is not None and detail.text == preview.store.get(good).text and "new words" not in detail.text


def test_a_broken_layout_is_shown_with_the_last_good_images_marked_stale(mini):
    preview = Preview(mini, "mini")
    good = preview.refresh()
    layout = next((mini.layouts / "mini").glob("*.yaml"))
    layout.write_text("elements: [unclosed\n")
    state = preview.refresh()
    assert state["status"] != "ok" and state["problems"]
    assert any(p["where"] and p["where"]["file"].startswith("layouts/mini/") for p in state["problems"])
    images = [f["image"] for c in state["cards"].values() for f in c["faces"]]
    assert images and all(images)  # the last good images are still there ...
    assert state["stale"] or any(f["stale"] for c in state["cards"].values() for f in c["faces"])  # ... marked
    assert set(state["cards"]) == set(good["cards"])


def test_broken_macros_and_rulebook_are_errors_on_the_page(mini):
    preview = Preview(mini, "mini")
    preview.refresh()
    (mini.layouts / "mini" / "macros.j2").write_text("{% macro broken( %}\n")
    state = preview.refresh()
    assert state["status"] == "stale" and any("macros.j2" in (p["where"] or {}).get("file", "")
                                              for p in state["problems"])
    (mini.layouts / "mini" / "macros.j2").unlink()
    (mini.layouts / "mini" / "rulebook.md.j2").write_text("# Rules\n{{ 1 / 0 }}\n")
    state = preview.refresh()
    assert state["problems"] and all(p["severity"] == "error" for p in state["problems"])
    assert any("rulebook.md.j2" in (p["where"] or {}).get("file", "") for p in state["problems"])
    assert state["cards"]  # the gallery stays


def test_the_rulebook_is_served_as_pages_and_the_index_lists_the_games(mini):
    with TestClient(create_app(mini, ["mini"]), base_url=LOCAL) as client:
        book = wait_for(lambda: client.get("/g/mini/state.json").json()["rulebook"])
        assert len(book["pages"]) >= 2
        page = client.get(f"/g/mini/book/{book['digest']}/0.png")
        assert page.status_code == 200 and page.content.startswith(b"\x89PNG")
        assert client.get(f"/g/mini/book/{book['digest']}/{len(book['pages'])}.png").status_code == 404
        assert client.get("/", follow_redirects=False).headers["location"] == "/g/mini/"
    shutil.copytree(mini.cards / "mini", mini.cards / "second")
    shutil.copytree(mini.layouts / "mini", mini.layouts / "second")
    with TestClient(create_app(mini, ["mini", "second"]), base_url=LOCAL) as client:
        index = client.get("/").text
        assert 'href="/g/mini/"' in index and 'href="/g/second/"' in index


@pytest.mark.parametrize(("written", "shown"), [("{a: [1, 2]}", "mini"), ("[x]", "mini"), ("true", "mini"),
                                               ("''", "mini"), ("0", "0"), ("Big Game", "Big Game")])
def test_the_index_shows_a_title_as_list_does(mini, written, shown):
    """A refused title was shown as Python writes it ("{'a': [1, 2]}"), and 'title: 0' as the game's id."""
    path = mini.cards / "mini" / "game.yaml"
    path.write_text(re.sub(r"(?m)^title:.*$", f"title: {written}", path.read_text()))
    assert _title(mini, "mini", {}) == shown


def test_games_named_with_url_signs_are_linked_to_their_own_pages(mini, running):
    import re
    from urllib.parse import unquote

    names = ["a#b", "q?x", "100%", "%41"]
    for name in names:
        shutil.copytree(mini.cards / "mini", mini.cards / name)
        shutil.copytree(mini.layouts / "mini", mini.layouts / name)
    url = running(mini, names).url  # (sent as a browser sends them: a test client re-encodes '%25')
    hrefs = re.findall(r'<a href="(/g/[^"]*)">', _get(url, "/")[1].decode())
    assert sorted(unquote(h.split("/")[2]) for h in hrefs) == sorted(names)  # (page.js decodes it so)
    for href in hrefs:
        assert _get(url, href)[0] == 200
        assert json.loads(_get(url, f"{href}state.json")[1])["game"] == unquote(href.split("/")[2])
    with TestClient(create_app(mini, ["a#b"]), base_url=LOCAL) as client:
        assert client.get("/", follow_redirects=False).headers["location"] == "/g/a%23b/"


def test_the_index_reads_game_yaml_off_the_event_loop_and_once_a_change(mini, running, monkeypatch):
    """The index read every game.yaml on every request in the server's event loop: one of 8 MB held every
    request of the preview (the cards' state too) for 10 s."""
    import pnp.serve.app as app

    shutil.copytree(mini.cards / "mini", mini.cards / "second")
    shutil.copytree(mini.layouts / "mini", mini.layouts / "second")
    url = running(mini, ["mini", "second"]).url
    reading, answered, reads = threading.Event(), threading.Event(), []

    def slow_load(path, shown, beneath=None):  # a game.yaml that takes long to read: until the state below is answered
        reads.append(shown)
        reading.set()
        answered.wait(10)
        return {"title": f"Title of {shown}"}

    monkeypatch.setattr(app, "load_file", slow_load)
    with ThreadPoolExecutor(1) as pool:
        index = pool.submit(_get, url, "/")
        assert reading.wait(10)
        assert _get(url, "/g/mini/state.json")[0] == 200  # answered while the index reads
        answered.set()
        assert "Title of second" in index.result()[1].decode()
    assert "Title of second" in _get(url, "/")[1].decode() and sorted(reads) == ["mini", "second"]
    game = mini.cards / "second" / "game.yaml"
    game.write_text(game.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    _get(url, "/")
    assert sorted(reads) == ["mini", "second", "second"]


def test_a_data_error_names_its_card_and_line(mini):
    preview = Preview(mini, "mini")
    preview.refresh()
    data = mini.cards / "mini" / "cards.yaml"
    text = data.read_text()
    line = next(n for n, row in enumerate(text.splitlines(), 1) if "fern" in row)
    data.write_text(text.replace("id: fern", "id: Fern!", 1))
    state = preview.refresh()
    assert state["status"] == "stale" and state["stale"]
    errors = [p for p in state["problems"] if p["severity"] == "error"]
    assert errors and errors[0]["where"]["file"] == "cards/mini/cards.yaml"
    assert abs(errors[0]["where"]["line"] - line) <= 3


# -- files: only the project's, never outside it --------------------------------------------------------
def test_request_paths_outside_the_project_are_refused(mini, tmp_path):
    (mini.root / "output" / "mini").mkdir(parents=True)
    (mini.root / "output" / "mini" / "mini-a4.pdf").write_bytes(b"%PDF-1.4\n")
    (tmp_path / "secret.txt").write_text("secret")
    (mini.root / "layouts" / "mini" / "link.yaml").symlink_to(tmp_path / "secret.txt")
    (mini.root / "notes.txt").write_text("not served")
    for rel in ["../secret.txt", "../../etc/passwd", "/etc/passwd", "layouts/mini/link.yaml", "notes.txt",
                "cards/../../secret.txt", ".git/config", "layouts/../notes.txt", "C:/windows", ""]:
        assert project_file(mini, rel) is None, rel
    assert project_file(mini, "output/mini/mini-a4.pdf") is not None
    assert project_file(mini, "cards/mini/cards.yaml") is not None
    with TestClient(create_app(mini, ["mini"]), base_url=LOCAL) as client:
        for path in ["/files/..%2f..%2fetc/passwd", "/files/%2e%2e/%2e%2e/etc/passwd", "/files//etc/passwd",
                     "/files/%2Fetc%2Fpasswd", "/source/..%2fsecret.txt", "/files/layouts/mini/link.yaml",
                     "/static/..%2fapp.py", "/g/mini/img/..%2f..%2fetc.png", "/g/nope/state.json"]:
            response = client.get(path)
            assert response.status_code in (403, 404), path
            assert b"secret" not in response.content and b"root:" not in response.content
        assert client.get("/files/output/mini/mini-a4.pdf").headers["content-type"] == "application/pdf"
        assert client.get("/source/cards/mini/cards.yaml").status_code == 200


def test_every_file_a_problem_names_has_a_source_page(mini):
    """An error of fonts/fonts.yaml was linked to /source/fonts/fonts.yaml, which answered 404."""
    (mini.root / "fonts").mkdir()
    (mini.root / "fonts" / "fonts.yaml").write_text("families:\n  Body: {regular: nosuch.ttf}\n")
    problems = Preview(mini, "mini").refresh()["problems"]
    assert {p["where"]["file"] for p in problems} == {"fonts/fonts.yaml"}, problems
    with TestClient(create_app(mini, ["mini"]), base_url=LOCAL) as client:
        for problem in problems:
            page = client.get(f"/source/{problem['where']['file']}")
            assert page.status_code == 200 and f'<tr id="L{problem["where"]["line"]}">' in page.text


@pytest.mark.parametrize("file, linked", [("cards/g/cards.yaml", True), ("cards/g/cards.csv", True),
                                           ("cards/g/cards.xlsx[Sheet 1]", False), ("cards/g/art/a.png", False)])
def test_a_problem_links_to_a_source_page_only_for_a_file_that_has_one(file, linked):
    """An error of a workbook's cell ('cards/g/cards.xlsx[Sheet 1]:2:2') was linked to /source/ of that name,
    which answered 404: a file /source/ shows no page of is said, not linked."""
    where = _where(Mark(file, 2, 2))
    assert where is not None and where["file"] == (file if linked else None) and where["at"] == f"{file}:2:2"


def test_a_rulebook_page_number_of_any_length_is_not_found_not_a_server_error(mini):
    """/book/<digest>/<5,000 digits>.png was a 500 and a traceback in the terminal (Python's limit on int())."""
    with TestClient(create_app(mini, ["mini"]), base_url=LOCAL, raise_server_exceptions=False) as client:
        for page in ["9" * 5000, "-1", "1e3", "０"]:
            assert client.get(f"/g/mini/book/{'a' * 32}/{page}.png").status_code == 404, page


def test_a_source_page_numbers_lines_as_messages_do_and_shows_a_long_file_in_part(mini, monkeypatch):
    """5 MB of line breaks made a page of 460 MB (1.4 GB of memory, 13 s); a form feed started a line of the page
    that no message counts, so every #L anchor after it showed the line above the one meant."""
    import re

    import pnp.serve.app

    monkeypatch.setattr(pnp.serve.app, "MAX_SOURCE_LINES", 3)
    # (a U+202E of a comment reversed how the rest of its line displayed: shown as its escape)
    (mini.root / "layouts" / "mini" / "notes.txt").write_text("one\ftwo\r\nthree\u202e<\nfour\nfive\n")
    with TestClient(create_app(mini, ["mini"]), base_url=LOCAL) as client:
        page = client.get("/source/layouts/mini/notes.txt").text
    assert re.findall(r'<tr id="L(\d+)">.*?<pre>(.*?)</pre>', page, re.S) == [
        ("1", "one\ftwo"), ("2", 'three<span class="hidden-char">\\u202e</span>&lt;'),
        ("3", "four")]
    assert '1 more line: <a href="/files/layouts/mini/notes.txt">' in page


def test_a_run_of_characters_hiding_text_is_marked_once_on_a_source_page():
    """Each U+202E marked in a span of its own: a file of 5 MB of them made a page of 65 MB, 5 s and 280 MB a
    request."""
    from pnp.serve.app import _source_lines, _source_page

    page = "".join(_source_page("cards/x.yaml", _source_lines([("# " + "\u202e" * 10_000 + "\u2066\n").encode()])))
    assert page.count('class="hidden-char"') == 1 and page.count("\\u202e") == 10_000
    assert len(page) < 7 * 10_000 + 1_000


def test_raw_dot_dot_paths_are_refused_by_the_running_server(mini, running):
    live = running(mini, ["mini"])
    for path in ["/files/../../etc/passwd", "/files/../cards/mini/cards.yaml", "/../../etc/passwd",
                 "/static/../app.py", "/source/../../etc/passwd", "/files/%2e%2e/%2e%2e/etc/passwd"]:
        status, body = _get(live.url, path)
        assert status in (400, 403, 404), (path, status)
        assert b"root:" not in body and b"def create_app" not in body
    assert _get(live.url, "/files/cards/mini/cards.yaml")[0] == 200


@contextlib.contextmanager
def _logged_by_uvicorn():
    """What the server logs (as it would print in the terminal) while the block runs."""
    logged = []
    handler = logging.Handler()
    handler.emit = lambda record: logged.append(record.getMessage())
    logging.getLogger("uvicorn.error").addHandler(handler)
    try:
        yield logged
    finally:
        logging.getLogger("uvicorn.error").removeHandler(handler)


def _raw_request(live, request: bytes) -> bytes:
    """The status of a request sent as written (bytes no HTTP client would send)."""
    host, port = live.url.split("//")[1].rstrip("/").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as conn:
        conn.sendall(request)
        return conn.recv(200).split()[1]


def test_a_request_with_a_body_is_refused_and_a_broken_one_leaves_no_traceback(mini, running):
    live = running(mini, ["mini"])
    with _logged_by_uvicorn() as logged:
        for body, status in [(b"Transfer-Encoding: chunked\r\n\r\nzzzz\r\n", b"400"),  # uvicorn's own 400
                             (b"Content-Length: 3\r\n\r\nabc", b"400"),
                             (b"Content-Length: 100000000000\r\n\r\n" + b"a" * 70_000, b"413")]:
            request = b"GET /g/mini/state.json HTTP/1.1\r\nHost: 127.0.0.1\r\n" + body
            assert _raw_request(live, request) == status, body[:30]
        assert _get(live.url, "/files/cards/mini/cards.yaml")[0] == 200
    assert not [m for m in logged if "Exception" in m], logged


def test_a_connection_that_does_not_send_its_whole_request_in_time_is_closed(mini, running, monkeypatch):
    """uvicorn waited for a request's head and body for good: 3,000 connections that sent half a head were all
    held open, and enough of them leave the server no file to open. Each has REQUEST_DEADLINE seconds from its
    opening or its previous answer; an event stream under way is never cut."""
    from pnp.serve import app

    monkeypatch.setattr(app, "REQUEST_DEADLINE", 0.3, raising=False)
    live = running(mini, ["mini"])
    host, port = live.url.split("//")[1].rstrip("/").split(":")
    head = b"GET /g/mini/state.json HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    sent = {"half a head": head, "half a body": head + b"Content-Length: 10\r\n\r\nabc",
            "half the next head": head + b"\r\n", "an event stream": head.replace(b"state.json", b"events") + b"\r\n"}
    conns = {}
    for what, data in sent.items():
        conns[what] = socket.create_connection((host, int(port)), timeout=5)
        conns[what].sendall(data)
    assert conns["half the next head"].recv(1 << 16).startswith(b"HTTP/1.1 200")
    conns["half the next head"].sendall(head)
    assert conns["an event stream"].recv(1 << 16).startswith(b"HTTP/1.1 200")
    time.sleep(1.0)
    for what, conn in conns.items():
        with conn:
            conn.setblocking(False)
            ended = False
            with contextlib.suppress(BlockingIOError):
                while not ended:  # what was sent before (the rest of an answer), then the end
                    ended = conn.recv(1 << 16) == b""
            assert ended == (what != "an event stream"), what


def test_connections_past_the_servers_cap_are_answered_at_once_and_the_cap_frees(mini, running, monkeypatch):
    """9,000 event streams held 350 MB and a request for the page waited 26 s: past MAX_CONNECTIONS open at once
    a request is answered 503 at once, and once they close the preview answers again."""
    from pnp.serve import app

    monkeypatch.setattr(app, "MAX_CONNECTIONS", 3, raising=False)
    live = running(mini, ["mini"])
    host, port = live.url.split("//")[1].rstrip("/").split(":")
    streams = []
    for _ in range(2):
        streams.append(socket.create_connection((host, int(port)), timeout=5))
        streams[-1].sendall(b"GET /g/mini/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert streams[-1].recv(1 << 16).startswith(b"HTTP/1.1 200")
    assert _raw_request(live, b"GET /g/mini/state.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") == b"503"
    # connections past twice the cap that send nothing are closed at once, not held (each holds a descriptor)
    idle = [socket.create_connection((host, int(port)), timeout=5) for _ in range(5)]
    assert [conn.recv(1) for conn in idle[4:]] == [b""]
    for stream in (*streams, *idle):
        stream.close()
    assert wait_for(lambda: _raw_request(live, b"GET /g/mini/state.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    == b"200", timeout=10)


@pytest.mark.parametrize("soft, hard, raised, served", [
    (1024, 1024, None, 256),  # a desktop's usual limit, not to be raised: the connections that fit in it
    (256, 256, None, 42),  # macOS's
    (1024, 1 << 20, 3256, 1000),  # raised as far as MAX_CONNECTIONS needs, no further
    (20000, 20000, None, 1000),
])
def test_the_connections_served_fit_in_the_files_the_process_may_open(monkeypatch, soft, hard, raised, served):
    """MAX_CONNECTIONS counted on 20,000 open files: at a desktop's 1,024, 990 downloads left the preview none, a
    traceback in the terminal for each connection it could not accept, a 500 and a 404 for a file there."""
    resource = pytest.importorskip("resource")
    from pnp.serve import app

    limits, asked = [soft, hard], []
    monkeypatch.setattr(resource, "getrlimit", lambda which: tuple(limits))
    monkeypatch.setattr(resource, "setrlimit", lambda which, new: (asked.append(new[0]), limits.__setitem__(0, new[0])))
    assert app.connection_limit() == served
    assert asked == ([] if raised is None else [raised])
    assert app.RESERVED_FILES // 2 + app.FILES_PER_CONNECTION * served <= limits[0]


def test_requests_any_page_may_send_print_nothing_in_the_terminal(mini, running):
    """A page of any site opening a WebSocket to the preview printed uvicorn's warnings in its terminal, one
    telling the user to pip install 'uvicorn[standard]'."""
    live = running(mini, ["mini"])
    with _logged_by_uvicorn() as logged:
        assert _raw_request(live, b"GET /g/mini/state.json HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                                  b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                                  b"Sec-WebSocket-Version: 13\r\n\r\n") == b"200"
    assert logged == []


def test_a_file_that_shrinks_while_it_is_served_ends_the_answer_without_a_traceback(mini, running, monkeypatch):
    """An editor saving a file in place (truncating it) while /files/ sent it: the length announced when it
    was opened could not be sent, a traceback in the terminal and a client left waiting. The answer now ends
    with what the file holds."""
    import urllib.request

    import pnp.serve.app as app

    sheet = mini.root / "output" / "sheet.pdf"
    sheet.parent.mkdir()
    sheet.write_bytes(b"%PDF" + b"x" * 300_000)
    chunks = app._chunks

    def saved_in_place_once_opened(opened, size):
        sheet.write_bytes(b"%PDF-short")  # the same file, truncated and written again
        yield from chunks(opened, size)

    monkeypatch.setattr(app, "_chunks", saved_in_place_once_opened)
    live = running(mini, ["mini"])
    logged = []
    handler = logging.Handler()
    handler.emit = lambda record: logged.append(record.getMessage())
    logging.getLogger("uvicorn.error").addHandler(handler)
    try:
        with urllib.request.urlopen(live.url + "files/output/sheet.pdf", timeout=10) as answer:
            assert answer.status == 200 and answer.read() == b"%PDF-short"
    finally:
        logging.getLogger("uvicorn.error").removeHandler(handler)
    assert not [m for m in logged if "Exception" in m], logged


def test_links_to_hidden_files_special_files_and_linked_folders_are_resolved_before_serving(mini, tmp_path):
    root = mini.root
    (root / ".env").write_text("SECRET=1")
    (root / "cards" / ".env").write_text("SECRET=2")
    # its .env on macOS's HFS+, which ignores U+200C; 'con.yaml' Windows opens as its console
    for odd in ("\u200c.env", "con.yaml"):
        (root / "cards" / odd).write_text("SECRET=5")
    (root / "cards" / ".hidden").mkdir()
    (root / "cards" / ".hidden" / "a.yaml").write_text("SECRET: 3")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("SECRET=4")
    (root / "output").mkdir()
    os.mkfifo(root / "output" / "pipe.pdf")  # reading it would wait forever
    links = {"output/env.txt": "../cards/.env", "layouts/mini/env.yaml": "../../.env", "cards/shown": ".hidden",
             "output/git": "../.git", "output/etc": "/etc", "output/null.png": "/dev/null",
             "output/mini": "../cards/mini", "output/loop": "loop"}
    for rel, target in links.items():
        (root / rel).symlink_to(target)
    refused = ["output/env.txt", "layouts/mini/env.yaml", "cards/shown/a.yaml", "output/git/config", "output/etc/passwd",
               "output/null.png", "output/pipe.pdf", "output/loop", "cards/.env", "cards/.hidden/a.yaml", "cards/mini",
               "cards\\.env", "cards/mini/../.env", "cards/./.env", "cards/\u200c.env", "cards/con.yaml"]
    for rel in refused:
        assert project_file(mini, rel) is None, rel
    assert project_file(mini, "output/mini/cards.yaml") == root / "cards" / "mini" / "cards.yaml"  # resolved, allowed
    client = TestClient(create_app(mini, ["mini"]), base_url=LOCAL)  # no lifespan: nothing refreshes
    for path in [*(f"/files/{rel}" for rel in refused), "/files/cards/%2eenv", "/files/cards%2f.env",
                 "/files/cards%5c.env", "/source/output/env.txt", "/files/output/mini/%2e%2e/%2e%2e/.env"]:
        response = client.get(path)
        assert response.status_code == 404 and b"SECRET" not in response.content, path
    assert client.get("/files/output/mini/cards.yaml").status_code == 200


def test_a_file_swapped_after_its_check_is_not_served(mini, tmp_path, monkeypatch):
    """Between the check of a path and its reading, its folder swapped for a link served a file outside the
    project, and the file swapped for a named pipe held a server thread for good: the file is opened as it
    was checked, one folder at a time, following no link."""
    import pnp.serve.app as app

    root, outside = mini.root, tmp_path / "outside"
    (outside / "mini").mkdir(parents=True)
    (outside / "mini" / "sheet.pdf").write_bytes(b"SECRET")
    (root / "output" / "mini").mkdir(parents=True)
    (root / "output" / "mini" / "sheet.pdf").write_bytes(b"%PDF-1.7 the build")
    checked = project_file(mini, "output/mini/sheet.pdf")
    client = TestClient(create_app(mini, ["mini"]), base_url=LOCAL)
    assert client.get("/files/output/mini/sheet.pdf").content == b"%PDF-1.7 the build"
    swaps = {"a linked folder": lambda: (shutil.rmtree(root / "output"), (root / "output").symlink_to(outside)),
             "a named pipe": lambda: ((root / "output" / "mini" / "sheet.pdf").unlink(),
                                      os.mkfifo(root / "output" / "mini" / "sheet.pdf"))}
    for swap in swaps.values():
        monkeypatch.setattr(app, "project_file", lambda project, rel, swap=swap: (swap(), checked)[1])  # checked, then swapped
        response = client.get("/files/output/mini/sheet.pdf")
        assert response.status_code == 404 and b"SECRET" not in response.content
        assert served(mini, checked) is None
        monkeypatch.undo()
        if (root / "output").is_symlink():
            (root / "output").unlink()
            (root / "output" / "mini").mkdir(parents=True)
            (root / "output" / "mini" / "sheet.pdf").write_bytes(b"%PDF-1.7 the build")


def test_another_host_name_is_refused(mini):
    with TestClient(create_app(mini, ["mini"]), base_url="http://evil.example") as client:
        assert client.get("/g/mini/state.json").status_code == 400
    with TestClient(create_app(mini, ["mini"]), base_url="http://localhost:8000") as client:
        assert client.get("/g/mini/state.json").status_code == 200


ANOTHER_SITE = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "image"}


@pytest.mark.parametrize("path, headers, status", [
    # another site's page: its <img> drew the design report, its fetch or EventSource opened (checked and drew) a game
    ("/g/mini/report.pdf", ANOTHER_SITE, 403),
    ("/g/mini/state.json", {**ANOTHER_SITE, "Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty"}, 403),
    ("/g/mini/state.json", {"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "cors", "Origin": "http://127.0.0.1:3000"}, 403),
    ("/g/mini/", {**ANOTHER_SITE, "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "iframe"}, 403),
    ("/g/mini/state.json", {"Origin": "http://evil.example"}, 403),  # a browser sending no fetch metadata
    ("/g/mini/state.json", {"Origin": "null"}, 403),  # a sandboxed frame
    # the preview's own pages, an address typed, a link followed from another site
    ("/g/mini/", {**ANOTHER_SITE, "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}, 200),
    ("/g/mini/", {"Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}, 200),
    ("/static/page.css", {"Sec-Fetch-Site": "same-origin", "Origin": LOCAL}, 200),
])
def test_another_sites_page_is_answered_only_a_page_opened_whole(mini, path, headers, status):
    client = TestClient(create_app(mini, ["mini"]), base_url=LOCAL)  # no lifespan: nothing refreshes
    response = client.get(path, headers=headers)
    assert response.status_code == status
    # never framed (clickjacking), read by another origin's <img> or <script>, or sniffed as another type
    assert response.headers["x-frame-options"] == "DENY" and "frame-ancestors 'none'" in response.headers[
        "content-security-policy"]
    assert response.headers["cross-origin-resource-policy"] == "same-origin"
    assert response.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize("headers, body, status", [
    ({"Host": "evil.example"}, None, 400),  # a page of another site renamed to this computer (DNS rebinding)
    ({}, b"a", 400),  # a request with a body (the preview takes none)
])
def test_the_outer_refusals_carry_the_guard_headers_too(mini, headers, body, status):
    response = TestClient(create_app(mini, ["mini"]), base_url=LOCAL).request("GET", "/g/mini/", headers=headers,
                                                                               content=body)
    assert response.status_code == status
    assert [response.headers.get(name.decode()) for name, _ in GUARD_HEADERS] == [
        value.decode() for _, value in GUARD_HEADERS]


def test_the_host_check_stays_on_when_listening_on_every_address(mini):
    client = TestClient(create_app(mini, ["mini"], host="0.0.0.0", allow_hosts=["Preview.LAN"]), base_url=LOCAL)
    allowed = ["localhost:8000", "127.0.0.1:8000", "[::1]:8000", "preview.lan:8000", "PREVIEW.lan.", "192.168.1.5:8000"]
    for host in allowed:
        assert client.get("/g/mini/", headers={"Host": host}).status_code == 200, host
    for host in ["evil.example:8000", "evil.example", "127.0.0.1.evil.example", "127.0.0.1@evil.example",
                 "evil.example/127.0.0.1", "[evil]:8000", "localhost:123456", "0.0.0.0.nip.io", ""]:
        assert client.get("/g/mini/", headers={"Host": host}).status_code == 400, host
    check = HostCheck(None, allowed_names("myhost.local", ["a.example"]))
    assert check.allows("myhost.local:8000") and check.allows("a.example") and not check.allows("b.example")
    # a name allowed is read as a Host header's is: case, a final dot and spaces aside
    check = HostCheck(None, allowed_names("MyHost.Local.", [" A.example "]))
    assert check.allows("myhost.local") and check.allows("a.EXAMPLE.:80") and not check.allows("b.example")
    # a --host name past ASCII is allowed in the form a browser sends it in (IDNA), as the system looked it up
    check = HostCheck(None, allowed_names("Jürgens-Mac.local."))
    assert check.allows("xn--jrgens-mac-9db.local:8000") and not check.allows("jrgens-mac.local")


def test_a_host_other_than_this_computer_is_warned_of(mini, monkeypatch):
    """Told by the address the socket is bound to: 127.1, 2130706433 and ::ffff:127.0.0.1 are this computer
    (they were warned of, as ipaddress reads only the usual spelling), 0 is every address."""
    import uvicorn

    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets: [s.close() for s in sockets])
    for host, warned in [("127.0.0.1", False), ("localhost", False), ("127.1", False), ("2130706433", False),
                         ("127.0.0.2", False), ("0", True), ("0.0.0.0", True),
                         ("localhost.", False)]:  # (its final dot is the DNS root's: it was refused, not looked up)
        result = run(mini.root, "serve", "mini", "--host", host, "--port", "0")
        assert result.exit_code == 0, result.output
        assert ("pnp serve: warning: --host " in result.stderr) == warned, (host, result.stderr)
    for host, bound in [("::1", "::1"), ("[::ffff:127.0.0.1]", "::ffff:127.0.0.1"), ("localhost", "127.0.0.1")]:
        assert exposure(host, bound) is None, host  # (IPv6 may not be there to listen on)
    for host, bound in [("::", "::"), ("myhost.lan", "192.168.1.5"), ("::ffff:10.0.0.1", "::ffff:10.0.0.1")]:
        assert "reachable from the network" in exposure(host, bound), host
    assert "--host 0.0.0.0\\x1b[2J makes" in exposure("0.0.0.0\x1b[2J", "0.0.0.0")  # said printably, not acted on
    import pnp.serve.app as app

    calls = []
    monkeypatch.setattr(app, "serve", lambda *args: calls.append(args))
    result = run(mini.root, "serve", "mini", "--host", "0.0.0.0", "--allow-host", "preview.lan")
    assert result.exit_code == 0, result.output
    assert calls[-1][2] == "0.0.0.0" and calls[-1][-1] == ("preview.lan",)
    assert "warning" not in run(mini.root, "serve", "mini").stderr
    assert "--allow-host NAME" in run(mini.root, "serve", "--help").output
    for empty in ["", " "]:  # the system listens on every address for it, and the URL shown was http://:8000/
        refused = run(mini.root, "serve", "mini", "--host", empty)
        assert refused.exit_code == 2 and "--host: empty" in refused.output + refused.stderr
    assert len(calls) == 2
    # never matched: a page refused ('.' and '..' were taken as the empty name)
    for odd in ["preview.lan:8000", "http://preview.lan", "[::1]:80", "", "a b", ".", "..", "a..b", ".lan"]:
        refused = run(mini.root, "serve", "mini", "--allow-host", odd)
        assert refused.exit_code == 2 and "--allow-host" in refused.output + refused.stderr, odd
    # a name of other letters is one: said to be none, its user was left with no clue of what to give
    refused = run(mini.root, "serve", "mini", "--allow-host", "m\u00fcnchen.lan")
    assert refused.exit_code == 2 and "its ASCII form (xn--" in refused.output + refused.stderr
    assert len(calls) == 2


def test_an_ipv4_address_written_short_is_printed_as_a_host_check_allows_it(mini):
    """--host 127.1 printed http://127.1:port/, whose Host header (as urllib sends it) was refused, 400."""
    _, sock, url = server(mini, ["mini"], "0x7f.1", 0)
    with sock:
        assert url == f"http://127.0.0.1:{sock.getsockname()[1]}/"


def test_an_ipv6_address_in_brackets_is_listened_on_as_the_address(mini):
    """--host [::1], as pnp prints the address, was looked up as a host name (11 s without a network), then
    refused; exposure() already took it for this computer."""
    import socket

    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        pytest.skip("::1 cannot be listened on here")
    _, sock, url = server(mini, ["mini"], "[::1]", 0)
    with sock:
        assert sock.family == socket.AF_INET6 and sock.getsockname()[0] == "::1"
        assert url.startswith("http://[::1]:")


# -- the design report: drawn in memory, once at a time --------------------------------------------------
def _files_of(root):
    return {p: p.stat().st_mtime_ns for p in root.rglob("*")}


def test_twenty_report_requests_at_once_all_get_the_same_pdf_and_nothing_is_written(mini):
    before = _files_of(mini.root)
    client = TestClient(create_app(mini, ["mini"]), base_url=LOCAL)
    with ThreadPoolExecutor(20) as pool:
        responses = list(pool.map(lambda _: client.get("/g/mini/report.pdf"), range(20)))
    assert [r.status_code for r in responses] == [200] * 20
    assert len({r.content for r in responses}) == 1 and responses[0].content.startswith(b"%PDF")
    assert _files_of(mini.root) == before
    game = mini.cards / "mini" / "game.yaml"
    game.write_text(game.read_text().replace("title: Mini Game", "title: Other Game", 1))
    assert client.get("/g/mini/report.pdf").content != responses[0].content  # the data as it is now


def test_a_report_asked_for_again_is_drawn_again_only_once_its_files_changed(mini, monkeypatch):
    """Any web page can ask the preview for a game's report, in a loop: each request drew it again (25 s of a
    core for DinoSpan's), the files unchanged. It is drawn again once an input of the game changed."""
    from pnp.serve import app as app_mod

    for shared in (mini.root / "layouts/shared").rglob("*"):  # each its own file: the tests' projects hard-link
        if shared.is_file():  # the repository's icons, and each project another test makes or removes changes
            data = shared.read_bytes()  # their link count, so their time changed (a redrawing, in a full run)
            shared.unlink()
            shared.write_bytes(data)
    drawn, draw = [], app_mod._design_report
    monkeypatch.setattr(app_mod, "_design_report", lambda project, game: drawn.append(game) or draw(project, game))
    client = TestClient(create_app(mini, ["mini"]), base_url=LOCAL)
    first = {client.get("/g/mini/report.pdf").content for _ in range(3)}
    assert len(drawn) == 1 and len(first) == 1
    (mini.root / "output/mini").mkdir(parents=True)
    (mini.root / "output/mini/mini-a4.pdf").write_bytes(b"%PDF")  # a build's output: no input of the report
    client.get("/g/mini/report.pdf")
    assert len(drawn) == 1
    game = mini.cards / "mini" / "game.yaml"
    game.write_text(game.read_text().replace("title: Mini Game", "title: Other Game", 1))  # saved in place
    assert client.get("/g/mini/report.pdf").content not in first and len(drawn) == 2


def test_a_report_that_fails_is_said_as_the_command_line_says_a_refusal(mini, monkeypatch, capsys):
    """A drawing's failure was said as `{type}: {error}`, raw, on the terminal and on the page: a message's marks
    of a part pasted (control characters) and an escape sequence of a game's text were printed as they were, and
    its place was left out. Now the line is a Diagnostic's: file:line, marks taken out, control characters
    escaped."""
    from pnp.report import pasted
    from pnp.serve import app as app_mod

    def fails(project, game):
        raise LayoutError(f"x\x1b[2Jy: run {pasted('pnp simulate ' + 'g' * 300)}", Mark("cards/mini/game.yaml", 3, 1))
    monkeypatch.setattr(app_mod, "_design_report", fails)
    page = TestClient(create_app(mini, ["mini"]), base_url=LOCAL).get("/g/mini/report.pdf")
    said = capsys.readouterr().err.strip()
    assert page.status_code == 500 and said.isprintable() and page.text.isprintable()
    line = "cards/mini/game.yaml:3:1: error: x\\x1b[2Jy: run pnp simulate " + "g" * 300
    assert said == f"pnp serve: {line}" and page.text == f"the design report could not be drawn: {line}"


def test_a_report_asked_for_during_a_drawing_gets_a_drawing_begun_after_it_asked():
    begun, release, drawings = threading.Event(), threading.Event(), []

    def draw():
        drawings.append(len(drawings) + 1)
        begun.set()
        release.wait(10)
        return drawings[-1]

    latest = Latest(draw)
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(latest.get)
        begun.wait(10)
        second = pool.submit(latest.get)  # the files may have changed since the first drawing began
        release.set()
        assert first.result() == 1 and second.result() == 2
    assert latest.get() == 3


def test_a_report_asked_for_reads_the_state_of_its_inputs_once():
    reads, drawings = [], []
    latest = Latest(lambda: drawings.append(1) or len(drawings), lambda: reads.append(1) or "unchanged")
    assert [latest.get() for _ in range(3)] == [1, 1, 1]
    assert len(reads) == 3 and len(drawings) == 1


def test_requests_for_a_report_being_drawn_leave_the_other_pages_answering(mini, monkeypatch):
    """Each request for a game's report waited for the one drawing under way in a thread of the server's pool:
    60 of them at once took its 40 threads, and every other page of the preview (the game list, pictures,
    files) waited for that drawing to end (DinoSpan's: 25 s, again at each edit)."""
    import anyio.to_thread

    from pnp.serve import app as app_mod

    begun, release, entered = threading.Event(), threading.Event(), []
    monkeypatch.setattr(app_mod, "_design_report", lambda project, game: (begun.set(), release.wait(20))
                        and (b"%PDF", ""))
    app = create_app(mini, ["mini"])

    async def counted(scope, receive, send):  # (the hub not started: no preview drawn)
        entered.append(scope["type"])
        if scope["type"] == "lifespan":
            for stage in ("startup", "shutdown"):
                await receive()
                await send({"type": f"lifespan.{stage}.complete"})
            return
        await app(scope, receive, send)

    def fewer_threads():  # the pool's 40 threads made 4 (this loop's own): 8 requests take them as 60 did 40
        anyio.to_thread.current_default_thread_limiter().total_tokens = 4

    with TestClient(counted, base_url=LOCAL) as client, ThreadPoolExecutor(9) as pool:
        client.portal.call(fewer_threads)
        reports = [pool.submit(client.get, "/g/mini/report.pdf") for _ in range(8)]
        begun.wait(20)
        while entered.count("http") < 8:
            time.sleep(0.01)
        time.sleep(0.1)  # (each on its way to the drawing)
        index = pool.submit(client.get, "/", follow_redirects=False)
        try:
            assert index.result(timeout=15).status_code == 307 and not release.is_set()
        finally:
            release.set()
        assert {r.result().status_code for r in reports} == {200}


# -- the test run says what it skipped --------------------------------------------------------------------
def test_a_skipped_test_is_said_at_the_end_of_the_run_without_dash_r(tmp_path):
    (tmp_path / "test_x.py").write_text("import pytest\n\ndef test_browser():\n    pytest.skip('no chromium here')\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "skips", "-p", "no:cacheprovider", "-q",
                           str(tmp_path / "test_x.py")], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(REPO / "tests"), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 skipped: these tests did NOT run" in done.stdout
    assert "test_x.py::test_browser: no chromium here" in done.stdout


# -- the watcher ----------------------------------------------------------------------------------------
def test_the_watcher_ignores_output_hidden_and_scratch_files(mini):
    games = ["mini", "other"]
    root = mini.root
    assert games_of(mini, root / "cards/mini/cards.yaml", games) == {"mini"}
    assert games_of(mini, root / "layouts/mini/macros.j2", games) == {"mini"}
    assert games_of(mini, root / "layouts/mini/rulebook.md.j2", games) == {"mini"}
    assert games_of(mini, root / "layouts/shared/icons/x.svg", games) == {"mini", "other"}
    assert games_of(mini, root / "fonts/fonts.yaml", games) == {"mini", "other"}
    assert games_of(mini, root / "layouts/mini", games) == {"mini"}  # the folder itself: replaced or renamed
    assert games_of(mini, root / "cards", games) == {"mini", "other"}
    assert games_of(mini, root / "output/mini/simulation.json", games) == {"mini"}  # the rulebook prints it
    for path in ["output/mini/mini-a4.pdf", "output/mini/manifest.json", "output/simulation.json", "output",
                 "output/mini/x/simulation.json", "cards/mini/.cards.yaml.swp",
                 "cards/mini/cards.yaml~", "layouts/mini/4913", ".git/index", "notes.txt", "cards/zzz/game.yaml"]:
        assert games_of(mini, root / path, games) == set(), path
    found = InputFilter(mini, games)
    from watchfiles import Change

    assert not found(Change.modified, str(root / "output/mini/mini-a4.pdf"))
    assert found(Change.modified, str(root / "cards/mini/cards.yaml"))


def test_the_watcher_watches_each_folder_of_the_inputs_and_never_follows_a_link_out(mini, tmp_path, monkeypatch):
    """Watched as whole trees, a link in a game's folder to /usr was followed: the preview walked and watched
    15,000 folders outside the project (inotify watches taken from every program of the user)."""
    from pnp.serve.watch import _folders_now

    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "deep").mkdir(parents=True)
    (mini.layouts / "mini" / "outside").symlink_to(elsewhere, target_is_directory=True)
    (mini.cards / "mini" / "art").mkdir()
    (mini.cards / "mini" / ".hidden").mkdir()
    watched = {folder for folder, _ in _folders_now(mini, ["mini"])}
    assert mini.cards / "mini" / "art" in watched and mini.layouts / "mini" in watched
    assert not any(folder.is_relative_to(elsewhere) or folder.name in ("outside", ".hidden") for folder in watched)
    assert all(folder.is_relative_to(mini.root) for folder in watched)
    (mini.root / "fonts").symlink_to(elsewhere, target_is_directory=True)  # os.walk walks a link it starts at
    assert not any(folder.is_relative_to(mini.root / "fonts") for folder, _ in _folders_now(mini, ["mini"]))
    (elsewhere / "mini").mkdir()  # output/ a link out: its output/mini was watched, and listed every second
    (mini.root / "output").symlink_to(elsewhere, target_is_directory=True)
    assert not any(folder.is_relative_to(mini.root / "output") for folder, _ in _folders_now(mini, ["mini"]))
    for n in range(5):
        (mini.cards / "mini" / "art" / str(n)).mkdir()
    monkeypatch.setattr("pnp.serve.watch.MAX_WATCHED_FOLDERS", 4)  # the walk, made every second, is bounded
    assert len(_folders_now(mini, ["mini"])) == 4


def test_saving_output_does_not_refresh_but_saving_data_does(mini, running):
    live = running(mini, ["mini"])
    preview = live.server.config.app.state.hub.previews["mini"]
    wait_for(lambda: preview.state["status"] == "ok" and preview.book is not None)  # the rulebook comes last
    settled = preview.generation
    (mini.root / "output" / "mini").mkdir(parents=True, exist_ok=True)
    (mini.root / "output" / "mini" / "mini-a4.pdf").write_bytes(b"%PDF-1.4\n")
    time.sleep(1.0)
    assert preview.generation == settled
    data = mini.cards / "mini" / "cards.yaml"
    data.write_text(data.read_text() + "\n")
    wait_for(lambda: preview.generation > settled, timeout=10)


def test_a_simulation_written_while_the_preview_runs_is_printed_in_its_rulebook(mini, running):
    """`pnp simulate` writes output/<game>/simulation.json, which the rulebook prints: the watcher ignored
    output/ and the next check kept the rulebook drawn without it, where build prints the figures."""
    rulebook = mini.layouts / "mini" / "rulebook.md.j2"
    rulebook.write_text(rulebook.read_text() + "\n{% if simulation %}Measured over {{ simulation.games }} games."
                        "{% else %}No simulation.{% endif %}\n")
    live = running(mini, ["mini"])
    preview = live.server.config.app.state.hub.previews["mini"]

    def book_text():
        book = preview.book
        return "" if book is None else " ".join(_page_words(book, n) for n in range(len(book.sizes)))

    wait_for(lambda: "No simulation." in book_text())
    sim = mini.root / "output" / "mini" / "simulation.json"
    sim.parent.mkdir(parents=True)
    sim.write_text(json.dumps({"games": 40}))
    wait_for(lambda: "Measured over 40 games." in book_text(), timeout=10)
    (mini.root / "output" / "mini" / "mini-a4.pdf").write_bytes(b"%PDF-1.4\n")  # a build's file: no refresh
    settled = preview.generation
    time.sleep(1.0)
    assert preview.generation == settled


def _page_words(book, n):
    from pnp.serve.images import PDFIUM, _page_text

    with PDFIUM:
        return "" if book.closed else _page_text(book.document[n])


def test_a_games_folder_renamed_away_is_seen_by_the_preview(mini, running):
    """A change to cards/<game> itself concerned no game: the page said ok with the game's data gone."""
    live = running(mini, ["mini"])
    preview = live.server.config.app.state.hub.previews["mini"]
    wait_for(lambda: preview.state["status"] == "ok")
    (mini.cards / "mini").rename(mini.cards / "mini-old")
    wait_for(lambda: preview.state["status"] == "stale", timeout=10)
    assert any(p["where"] and p["where"]["file"] == "cards/mini/game.yaml" for p in preview.state["problems"])


def test_a_folder_gone_before_its_watch_began_does_not_end_the_watcher(mini, monkeypatch):
    """A folder listed, then removed before its watch began (rm -rf of a tree of thousands of folders while the
    watcher walked it), raised FileNotFoundError in the watcher's task: it ended silently, and the page showed
    no edit again until the server was restarted. It goes on, and the games are checked again."""
    import asyncio

    from pnp.serve import watch

    monkeypatch.setattr(watch, "FOLDERS_LOOKED_FOR_MS", 20)
    real, walks = watch._folders_now, []

    def listed(project, games):
        walks.append(1)
        found = real(project, games)
        return [*found, (mini.cards / "mini" / "gone", 1)] if len(walks) == 1 else found

    monkeypatch.setattr(watch, "_folders_now", listed)

    async def watched():
        stop, changed = asyncio.Event(), []
        task = asyncio.create_task(watch.watch(mini, ["mini"], changed.append, stop))
        for _ in range(300):
            await asyncio.sleep(0.01)
            if len(walks) >= 3 or task.done():
                break
        ended = task.done()
        stop.set()
        await task
        return changed, ended

    changed, ended = asyncio.run(watched())
    assert not ended and len(walks) >= 3 and {"mini"} in changed


def test_a_name_not_utf8_ends_one_watch_not_the_watcher(mini, monkeypatch):
    """A change to a file named with a byte not UTF-8 (cards/mini/x\\xff made while served) raised watchfiles'
    internal error in a task group: the watcher ended for good, said as 'ExceptionGroup: unhandled errors in a
    TaskGroup'. It is now a failure of one watch (OSError), begun again as a folder gone is; other errors pass."""
    import asyncio

    from watchfiles._rust_notify import WatchfilesRustInternalError

    from pnp.serve import watch

    def raising(error):
        async def awatch(*args, **kwargs):
            raise error
            yield  # (an async generator, as watchfiles' is)
        return awatch

    for error, expected in [(ExceptionGroup("g", [WatchfilesRustInternalError('Unable to decode path "x"')]), OSError),
                            (WatchfilesRustInternalError("x"), OSError), (ExceptionGroup("g", [KeyError("k")]), ExceptionGroup)]:
        monkeypatch.setattr(watch, "awatch", raising(error))
        with pytest.raises(expected) as raised:
            asyncio.run(watch._watched(mini, ["mini"], [(mini.cards, 1)], watch.InputFilter(mini, ["mini"]),
                                       lambda games: None, None, watch._WatchFailures()))
        assert expected is not OSError or "not UTF-8" in str(raised.value)
    # a folder so named is not watched: handed to watchfiles, its name ended the watcher (UnicodeEncodeError)
    os.mkdir(os.fsencode(mini.cards / "mini") + b"/x\xff")
    assert mini.cards / "mini" in list(watch._folders_below(mini.cards / "mini"))
    assert all(str(folder).isprintable() for folder in watch._folders_below(mini.cards / "mini"))


def test_a_watcher_ended_by_an_error_is_said_in_the_terminal(capsys):
    """The watcher's task ending in an error ended with not a word: pages showed no edit again."""
    import asyncio

    from pnp.serve.app import _said_if_failed

    async def failing():
        raise OSError("no watch left in cards/mini/x\x1b[2Jy")  # (a folder of the game's named so)

    async def ended():
        task = asyncio.create_task(failing())
        task.add_done_callback(_said_if_failed)
        with contextlib.suppress(OSError):
            await task
        await asyncio.sleep(0)  # (the callback runs at the loop's next turn)

    asyncio.run(ended())
    err = capsys.readouterr().err
    assert err.startswith("pnp serve: the watch of the games' files ended") and "no watch left" in err
    assert err.strip().isprintable() and "x\\x1b[2Jy" in err
    from pnp.serve.watch import _WatchFailures

    failures = _WatchFailures()
    for _ in range(2):  # (said the second time in a row)
        failures.note(FileNotFoundError("gone: cards/mini/x\x1b[2Jy"), lambda: None)
    err = capsys.readouterr().err
    assert err.startswith("pnp serve: cannot watch") and err.strip().isprintable() and "x\\x1b[2Jy" in err


def test_a_refresh_that_fails_is_said_as_the_command_line_says_a_refusal(mini, monkeypatch, capsys):
    """A refresh's failure was printed as `{type}: {error}`, raw: a game's escape sequence in its message acted on
    the terminal, and a second line could be forged. Now it is said as a failed design report is: a Diagnostic's
    line, its place named, control characters escaped."""
    import asyncio

    from pnp.serve.app import Hub

    hub = Hub(mini, ["mini"])
    said = []

    def fails(first, newer):
        raise LayoutError("x\x1b[2Jy\nforged", Mark("cards/mini/game.yaml", 3, 1))

    monkeypatch.setattr(hub.previews["mini"], "refresh", fails)

    async def refreshed():
        hub.dirty["mini"] = asyncio.Event()
        hub.dirty["mini"].set()
        task = asyncio.create_task(hub._loop("mini"))
        for _ in range(500):
            await asyncio.sleep(0.01)
            said.append(capsys.readouterr().err)
            if "".join(said):
                break
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    asyncio.run(refreshed())
    line = "".join(said).strip()
    assert line == "pnp serve: cards/mini/game.yaml:3:1: error: x\\x1b[2Jy\\nforged", line


def test_a_fonts_folder_made_after_the_preview_started_is_watched(mini, running):
    """Only the folders there at the start were watched: a project's first fonts/ was never read again, and the
    page said ok where validate refused its fonts.yaml."""
    assert not (mini.root / "fonts").exists()
    live = running(mini, ["mini"])
    preview = live.server.config.app.state.hub.previews["mini"]
    wait_for(lambda: preview.state["status"] == "ok")
    (mini.root / "fonts").mkdir()
    (mini.root / "fonts" / "fonts.yaml").write_text("families: [\n")
    wait_for(lambda: any(p["where"] and p["where"]["file"] == "fonts/fonts.yaml" for p in preview.state["problems"]),
             timeout=10)


@contextlib.contextmanager
def _served(mini):
    """`pnp serve mini` in a process of its own on a free port: (the process, the first line it printed); it is
    killed if the test leaves it running. Its output is read by communicate() after."""
    process = subprocess.Popen([sys.executable, "-c", "from pnp.cli import main; main()", "--root", str(mini.root),
                                "serve", "mini", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    try:
        yield process, process.stdout.readline()
    finally:
        if process.poll() is None:
            process.kill()


@pytest.mark.parametrize("first", ["SIGINT", "SIGHUP"])
def test_ctrl_c_stops_the_server_cleanly(mini, first):
    """Ctrl-C pressed twice, as an impatient user does (the other Ctrl-C tests press it once): the second
    cancelled the app's lifespan as it ended, and uvicorn printed its traceback ('ERROR: Traceback ...
    CancelledError'). The terminal closed (SIGHUP) then Ctrl-C: SIGHUP broke out of the event loop unstopped,
    and the Ctrl-C ended pnp killed by SIGINT (exit -2)."""
    with _served(mini) as (process, line):
        assert line.startswith("pnp serve: http://127.0.0.1:"), line
        url = line.split()[2]
        wait_for(lambda: json.loads(_get(url, "/g/mini/state.json")[1])["generation"] >= 1, timeout=20)
        process.send_signal(getattr(signal, first))
        time.sleep(0.01)  # (the first has begun the stop)
        process.send_signal(signal.SIGINT)
        process.wait(timeout=10)
    out, err = process.communicate()
    assert process.returncode == 0, err
    assert "Traceback" not in err
    assert " mini: valid (" in out  # each check of the game is said in the terminal


def test_ctrl_c_as_the_preview_starts_stops_it(mini):
    """Ctrl-C as the event loop started landed in asyncio's own handler, which cancels the server's task, and
    uvicorn's start swallowed the cancellation: the preview ran on, the Ctrl-C lost."""
    with _served(mini) as (process, line):
        assert line.startswith("pnp serve: http://127.0.0.1:"), line
        process.send_signal(signal.SIGINT)  # (the line is said just before the loop starts)
        process.wait(timeout=10)
    out, err = process.communicate()
    assert process.returncode == 0 and "Traceback" not in err, err


def test_ctrl_c_with_a_page_open_ends_its_event_stream(mini):
    """A page open holds an event stream: at Ctrl-C the server waited a second for it, then cancelled it, and
    printed a traceback for each open page."""
    with _served(mini) as (process, line):
        url = line.split()[2]
        host, port = url.split("//")[1].rstrip("/").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as page:
            page.sendall(f"GET /g/mini/events HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
            said = b""
            while b"event: update" not in said:  # the page is open
                said += page.recv(65536)
            process.send_signal(signal.SIGINT)
            while page.recv(65536):  # the stream ends: its answer complete, the connection closed
                pass
            process.wait(timeout=10)
    out, err = process.communicate()
    assert process.returncode == 0 and "Traceback" not in err + out and "ERROR" not in err, err


# -- a browser ------------------------------------------------------------------------------------------
def _browser():
    if not CHROMIUM.exists():
        if os.environ.get("CI") == "true":
            pytest.fail("CI must have Debian's chromium (.ci/run installs it)")
        pytest.skip("Debian's chromium is not installed (apt-get install chromium) for the browser test")
    sync_api = pytest.importorskip("playwright.sync_api") if os.environ.get("CI") != "true" else \
        __import__("playwright.sync_api", fromlist=["sync_playwright"])
    return sync_api.sync_playwright


def test_the_page_follows_edits_in_a_browser(tmp_path, running):
    sync_playwright = _browser()
    project = shipped_copy(tmp_path / "proj", "evo")
    live = running(project, ["evo"])
    events = project.cards / "evo" / "events.yaml"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(live.url)
            page.wait_for_selector("section[data-component=events] a.card img", timeout=30000)
            assert page.locator("section[data-component=events] a.card").count() == 26
            card = page.locator('a.card[data-key="events/scorching-sun"]')
            old_src = card.locator("img").get_attribute("src")
            assert "Scorching Sun" in card.locator("img").get_attribute("alt")
            card.click()
            page.wait_for_selector("#detail:not([hidden])")
            assert page.locator('#detail-fields tr[data-field=title] td').inner_text() == "Scorching Sun"
            assert "cards/evo/events.yaml:" in page.locator("#detail-source").inner_text()

            started = time.monotonic()
            events.write_text(events.read_text().replace("title: Scorching Sun", "title: Blazing Heatwave", 1))
            page.wait_for_function(
                "document.querySelector('#detail-fields tr[data-field=title] td')?.textContent === 'Blazing Heatwave'",
                timeout=15000)
            # the new image, loaded: its alt text is what pdfium reads back from the card as drawn
            page.wait_for_function("(() => { const img = document.querySelector('#detail-faces img[data-side=front]');"
                                   " return img && img.alt.includes('Blazing Heatwave') && img.complete"
                                   " && img.naturalWidth > 0; })()", timeout=15000)
            seconds = time.monotonic() - started  # said, not asserted: speed is measured in benchmarks/
            new_src = page.locator('a.card[data-key="events/scorching-sun"] img').get_attribute("src")
            assert new_src != old_src
            assert page.locator('a.card[data-key="events/big-predator"] img').get_attribute("src")  # still there

            text = events.read_text()
            line = next(n for n, row in enumerate(text.splitlines(), 1) if "title: Blazing Heatwave" in row) + 1
            assert "phase: 2" in text.splitlines()[line - 1]
            events.write_text(text.replace("title: Blazing Heatwave\n  phase: 2", "title: Blazing Heatwave\n  phase: 9"))
            problem = page.locator("#problems li.error").first
            problem.wait_for(timeout=15000)
            assert f"cards/evo/events.yaml:{line}:" in problem.locator("a.where").inner_text()
            assert problem.get_attribute("data-card") == "events/scorching-sun"
            assert page.locator("#stale").is_visible()
            assert not errors, errors
        finally:
            browser.close()
    print(f"one-card change seen in the browser after {seconds:.2f} s")


def test_a_pattern_that_backtracks_is_stopped_in_the_previews_worker_thread(tmp_path):
    # the preview validates in a thread, where no processor-time signal can interrupt the regular expression
    # engine: the match itself must stop
    root = make_project(tmp_path / "proj", case={"replace": {
        "cards/mini/game.yaml": [["name: {type: str, max_len: 20}", 'name: {type: str, pattern: "(a|aa)+b"}']],
        "cards/mini/cards.yaml": [["name: Lion", "name: " + "a" * 60]]}})
    found = []
    worker = threading.Thread(target=lambda: found.append(Preview(Project(root), "mini").refresh()))
    worker.start()
    worker.join(timeout=60)
    assert not worker.is_alive() and found
    messages = [p["message"] for p in found[0]["problems"]]
    assert any("matching the pattern (a|aa)+b took longer than" in m for m in messages), messages


def _book_refused(mini, monkeypatch, message, mark):
    """A preview of the mini game refreshed, whose rulebook stops on the game's budget, said as `message` at `mark`."""
    import pnp.serve.preview as module
    from pnp.errors import BudgetSpent

    def spent(studio):
        raise BudgetSpent(message, mark)

    monkeypatch.setattr(module, "rulebook_pdf", spent)
    preview = Preview(mini, "mini")
    preview.refresh()
    return preview


def test_a_rulebook_that_cannot_be_drawn_is_said_on_the_page(mini, monkeypatch):
    preview = _book_refused(mini, monkeypatch, "the game draws too much", Mark("layouts/mini/rulebook.md.j2", 3, 1))
    assert preview.refresh_book() is True
    problem = preview.state["problems"][-1]
    assert problem["message"] == "the rulebook could not be drawn: the game draws too much"
    assert problem["where"]["at"] == "layouts/mini/rulebook.md.j2:3:1" and preview.state["status"] == "errors"


def test_the_pages_messages_are_printable_as_the_printed_line_says_them(mini, monkeypatch):
    """A U+202E in a message or a file name reversed how the rest of it showed on the page; a newline made a line."""
    from pnp.report import Diagnostic

    preview = _book_refused(mini, monkeypatch, "the \u202egame draws", Mark("layouts/mini/r\u202eb.md.j2", 3, 1))
    state = preview._state([Diagnostic("error", "a\u202eb\nc", Mark("cards/mini/x\u2028y.yaml", 2, 1))], "errors", None)
    preview.refresh_book()
    said = [state["problems"][0], preview.state["problems"][-1]]
    assert [p["message"] for p in said] == ["a\\u202eb\\nc", "the rulebook could not be drawn: the \\u202egame draws"]
    assert [p["where"]["at"] for p in said] == ["cards/mini/x\\u2028y.yaml:2:1", "layouts/mini/r\\u202eb.md.j2:3:1"]


def test_a_games_page_or_script_is_served_as_a_download_never_run(mini):
    """A game someone sent may hold an .html or an .svg with a <script>: served as a page, it ran with the
    preview's address. Only pnp's outputs, pictures and text are served as what they are, never sniffed."""
    root = mini.root
    (root / "cards" / "mini" / "x.html").write_text("<script>alert(1)</script>")
    (root / "layouts" / "mini" / "x.SVG").write_text('<svg xmlns="http://www.w3.org/2000/svg"><script/></svg>')
    (root / "output" / "mini").mkdir(parents=True)
    (root / "output" / "mini" / "sheet.pdf").write_bytes(b"%PDF-1.7")
    client = TestClient(create_app(mini, ["mini"]), base_url=LOCAL)
    for path in ["/files/cards/mini/x.html", "/files/layouts/mini/x.SVG"]:
        response = client.get(path)
        assert response.status_code == 200 and response.headers["content-type"] == "application/octet-stream"
        assert response.headers["content-disposition"] == "attachment", path
        assert response.headers["x-content-type-options"] == "nosniff"
    assert client.get("/files/output/mini/sheet.pdf").headers["content-type"] == "application/pdf"
    assert client.get("/files/cards/mini/cards.yaml").headers["content-type"] == "text/plain; charset=utf-8"


def test_a_file_whose_name_is_not_utf8_beside_the_layouts_is_no_failure_of_the_preview(mini):
    """A picture named in another encoding (b'\\xff.png') among the layouts: digesting the folder's files for
    the preview raised UnicodeEncodeError, and the page said only that pnp failed."""
    folder = os.fsencode(mini.root / "layouts" / "mini")
    with open(os.path.join(folder, b"\xff\xfe.png"), "wb") as f:
        f.write(b"\x89PNG not one")
    state = Preview(mini, "mini").refresh()
    assert state["status"] == "ok" and state["problems"] == [], state["problems"]


def test_a_title_of_megabytes_is_shown_cut_short(mini):
    """game.yaml bounds no title: six of 15 MB made an index page of 94 MB, 12 s to send, and each state.json
    carried its game's whole."""
    from pnp.model.game import TITLE_SHOWN

    game = mini.cards / "mini" / "game.yaml"
    game.write_text(game.read_text(encoding="utf-8").replace("title: Mini Game", "title: " + "T" * 100_000),
                    encoding="utf-8")
    shutil.copytree(mini.cards / "mini", mini.cards / "second")
    shutil.copytree(mini.layouts / "mini", mini.layouts / "second")
    with TestClient(create_app(mini, ["mini", "second"]), base_url=LOCAL) as client:
        index = client.get("/").text
        assert index.count("T" * (TITLE_SHOWN - 1) + "…") == 2 and "T" * TITLE_SHOWN not in index
    preview = Preview(mini, "mini")
    assert preview.refresh()["title"] == "T" * (TITLE_SHOWN - 1) + "…"


def test_the_watcher_cap_is_spent_on_the_served_games_not_on_another_games_folders(mini):
    """cards/ and layouts/ were walked whole up to the cap: another game of 1,100 folders (cards/aaa/) took it
    all, the served game's folders were never watched and its edits never shown."""
    from pnp.serve.watch import MAX_WATCHED_FOLDERS, _folders_now

    for n in range(MAX_WATCHED_FOLDERS + 10):
        (mini.cards / "aaa" / "art" / str(n)).mkdir(parents=True)
    (mini.layouts / "shared" / "icons").mkdir(parents=True, exist_ok=True)
    watched = {folder for folder, _ in _folders_now(mini, ["mini"])}
    assert {mini.cards, mini.layouts, mini.cards / "mini", mini.layouts / "mini",
            mini.layouts / "shared" / "icons"} <= watched
    assert not any(folder.is_relative_to(mini.cards / "aaa") for folder in watched)



def test_the_watcher_cap_counts_folders_that_are_there_inputs_first(mini):
    """output/<game> of each served game was listed before the inputs, built or not, and counted: 1,100 games
    served (a project's every game) took the whole cap, and no game's input was watched, not a word said."""
    from pnp.serve.watch import MAX_WATCHED_FOLDERS, _folders_now

    (mini.root / "output").mkdir(exist_ok=True)
    served = ["mini", *(f"unbuilt-{n}" for n in range(MAX_WATCHED_FOLDERS + 10))]
    watched = {folder for folder, _ in _folders_now(mini, served)}
    assert {mini.cards / "mini", mini.layouts / "mini", mini.root / "output"} <= watched

def test_the_watchers_walk_lists_a_bounded_number_of_entries_of_a_tree(mini, monkeypatch):
    """The walk, made every second, listed every entry of a game's folders: 200,000 files kept the preview at
    20% of a core, idle. It lists at most MAX_TREE_ENTRIES of a tree (past MAX_FOLDER_FILES the game is refused)."""
    from pnp.serve import watch

    many = mini.cards / "mini" / "many"
    many.mkdir()
    for n in range(300):
        (many / f"{n}.txt").touch()
    (mini.cards / "mini" / "art").mkdir()
    monkeypatch.setattr(watch, "MAX_TREE_ENTRIES", 100, raising=False)
    listed, scandir = [], os.scandir

    class Counted:  # os.scandir's listing, each entry counted as it is listed
        def __init__(self, path):
            self.entries = scandir(path)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.entries.close()

        def __iter__(self):
            return self

        def __next__(self):
            entry = next(self.entries)
            listed.append(entry.path)
            return entry

        def close(self):
            self.entries.close()

    monkeypatch.setattr(os, "scandir", Counted)
    watched = {folder for folder, _ in watch._folders_now(mini, ["mini"])}
    monkeypatch.undo()
    assert {mini.cards / "mini" / "art", mini.layouts / "mini"} <= watched
    assert len([p for p in listed if Path(p).is_relative_to(mini.cards / "mini")]) <= 101


def test_a_game_of_more_folders_than_are_watched_is_said_in_the_terminal(mini, monkeypatch, capsys):
    """Past the cap, the rest of a game's folders were left unwatched with not a word."""
    from pnp.serve import watch

    cap = len(watch._folders_now(mini, ["mini"])) + 1
    monkeypatch.setattr(watch, "MAX_WATCHED_FOLDERS", cap)
    watch._say_if_capped(watch._folders_now(mini, ["mini"]))
    assert capsys.readouterr().err == ""
    for n in range(5):
        (mini.cards / "mini" / "art" / str(n)).mkdir(parents=True)
    watch._say_if_capped(watch._folders_now(mini, ["mini"]))
    assert f"only the first {cap} are watched" in capsys.readouterr().err


def test_the_terminal_line_of_a_refresh_is_printable():
    """summary() printed the first message as the page's state holds it; pnp prints every other message
    through report.printable."""
    from pnp.serve.app import summary

    state = {"seconds": 0.5, "problems": [{"severity": "error", "message": "x\x1b[2Jy\nforged",
                                           "where": {"at": "cards/g/a.yaml:1:1"}}]}
    line = summary("g", state)
    assert line.isprintable() and "x\\x1b[2Jy\\nforged" in line and "cards/g/a.yaml:1:1" in line


def test_a_stopping_server_does_not_wait_for_the_refresh_under_way(tmp_path, monkeypatch):
    """Ctrl-C waited for the refresh under way to check and draw the whole game (9 s for dinospan) before
    the process ended: stopping leaves it off at its next element."""
    cards = "".join(f"- {{id: c{n}, name: Card {n}, kind: beast, power: {1 + n % 5}, text: 'Roars :star: loudly.'}}\n"
                     for n in range(800))
    project = Project(make_project(tmp_path / "proj", {"cards/mini/cards.yaml": cards}, case={"replace": {
        "cards/mini/game.yaml": [["data.cards | length == 4", "data.cards | length > 4"], ["count: 4", "count: 800"]]}}).resolve())
    resolved = []  # the cards the refresh worked out (checked and laid out), one by one
    real = Studio.resolve
    monkeypatch.setattr(Studio, "resolve", lambda self, *args, **kwargs: (resolved.append(1), real(self, *args, **kwargs))[1])
    preview = Preview(project, "mini")
    refreshing = threading.Thread(target=preview.refresh, args=(lambda state: None, lambda: False))
    refreshing.start()
    wait_for(lambda: preview._checking is not None or not refreshing.is_alive(), step=0.01)
    assert refreshing.is_alive()  # (still checking and drawing its 800 cards)
    preview.close()  # returns once the refresh has left off (it holds the lock close takes)
    left_off_at = len(resolved)
    refreshing.join(10)
    assert not refreshing.is_alive() and len(resolved) == left_off_at < 800, (left_off_at, len(resolved))
    assert preview.generation == 0  # nothing half-drawn was shown


@pytest.mark.parametrize("target, said", [
    ("{outside}", "layouts/mini: error: folder 'layouts/mini' is outside the project folder"),
    ("../.kept", "layouts/mini: error: folder 'layouts/mini' leads to a hidden file or folder ('.kept')"),
])
def test_a_games_folder_turned_into_a_link_out_is_refused_before_it_is_walked(tmp_path, target, said):
    """A game's layouts folder made a link to / while the preview ran: its every folder was walked for files,
    20,000 names of the computer's files listed, then refused as a folder holding too many. The link is refused
    as any file leading out of the project (or to a hidden folder) is, before it is walked."""
    root = make_project(tmp_path / "p")
    outside = tmp_path / "outside"
    shutil.move(root / "layouts" / "mini", outside)
    shutil.copytree(outside, root / ".kept")
    (root / "layouts" / "mini").symlink_to(str(outside) if target == "{outside}" else target)
    result = run(root, "validate", "mini")
    assert result.exit_code == 1 and said in result.output, result.output


def test_ctrl_c_with_a_download_nobody_reads_stops_without_a_traceback(mini):
    """A client asking for a large file and reading none of it holds its answer: at Ctrl-C uvicorn waited a
    second, cancelled it, and printed an error line and a traceback in the terminal."""
    big = mini.root / "output" / "mini" / "mini-a4.pdf"
    big.parent.mkdir(parents=True, exist_ok=True)
    big.touch()
    os.truncate(big, 64 * 2**20)
    with _served(mini) as (process, line):
        url = line.split()[2]
        host, port = url.split("//")[1].rstrip("/").split(":")
        with socket.socket() as client:
            client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            client.connect((host, int(port)))
            client.sendall(f"GET /files/output/mini/mini-a4.pdf HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
            assert client.recv(64).startswith(b"HTTP/1.1 200")  # the answer begun, then read no further
            time.sleep(0.5)
            process.send_signal(signal.SIGINT)
            process.wait(timeout=10)
    out, err = process.communicate()
    assert process.returncode == 0 and "Traceback" not in err + out and "ERROR" not in err, err


def test_a_cards_data_is_sent_cut_to_what_the_page_shows():
    # a text an alias repeats on every card (950,000 characters on 500) was sent whole for each: a state.json
    # of 475 MB, 18 s to the game's first page; then cut text by text, a list of 100 aliases of it was still
    # 2 MB a card (400 MB on 200 cards): all of a card's data is cut together
    from pnp.serve.preview import MAX_SHOWN_CHARS, MAX_SHOWN_ENTRIES, MAX_SHOWN_ITEM_CHARS, _plain

    huge = "w" * 950_000
    shown = _plain({"n": 4, "on": True, "none": None, "text": huge, huge: 1, "tags": [huge] * 5_000})
    assert len(shown["text"]) == MAX_SHOWN_CHARS and shown["text"].endswith("…")
    assert [len(k) for k in shown][4] == MAX_SHOWN_CHARS
    assert (shown["n"], shown["on"], shown["none"]) == (4, True, None)
    assert len(json.dumps(shown)) < MAX_SHOWN_ITEM_CHARS + 1_000 and shown["tags"]
    assert len(_plain([[""] * 5_000] * 5_000)) < MAX_SHOWN_ENTRIES  # empty texts count too
    # and all the cards together: 3,000 cards of such aliases (a 1 MB file) made a 211 MB state.json
    from pnp.serve.preview import MAX_SHOWN_ALL_CHARS, _item_share

    assert _item_share(2) == MAX_SHOWN_ITEM_CHARS and 6_000 * _item_share(6_000) <= MAX_SHOWN_ALL_CHARS
    assert len(json.dumps(_plain(shown, _item_share(6_000)))) < _item_share(6_000) + 1_000
    assert _plain({"text": "Roars", "list": [1, "a"]}) == {"text": "Roars", "list": [1, "a"]}


async def _asgi_get(app, path: str) -> list[bytes]:
    """The body of the app's answer to a GET of `path`, as the pieces it handed the server."""
    import asyncio

    scope = {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(), "query_string": b"",
             "headers": [(b"host", b"127.0.0.1")], "http_version": "1.1", "scheme": "http",
             "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 1), "root_path": ""}
    sent = []

    async def receive():
        await asyncio.sleep(60)
        return {"type": "http.disconnect"}

    async def send(message):
        if message["type"] == "http.response.body":
            sent.append(message.get("body", b""))
    await app(scope, receive, send)
    return sent


def test_state_json_is_encoded_once_a_state_and_handed_out_as_the_client_takes_it(mini, monkeypatch):
    # 700 clients that read nothing of the state.json of a game of 10,000 cards with errors (4 MB) each held a
    # copy of it in the server: 1.8 GB; and it was encoded anew for each request, in the server's event loop
    import asyncio

    from pnp.serve import app as app_mod

    app = create_app(mini, ["mini"])
    preview = app.state.hub.previews["mini"]
    preview.state = {**preview.state, "problems": [{"message": "<b>x</b>\u202e" * 50}] * 2_000}
    encoded, encode = [], app_mod._json_bytes
    monkeypatch.setattr(app_mod, "_json_bytes", lambda state: encoded.append(1) or encode(state))

    async def twice() -> tuple[list[bytes], list[bytes]]:
        return await _asgi_get(app, "/g/mini/state.json"), await _asgi_get(app, "/g/mini/state.json")

    first, second = asyncio.run(twice())
    assert len(encoded) == 1 and b"".join(first) == b"".join(second)
    assert json.loads(b"".join(first)) == preview.state
    assert len(first) > 2 and max(map(len, first)) <= app_mod.SENT_CHUNK


def test_a_source_page_is_made_and_handed_out_a_piece_at_a_time(mini):
    # the page of a 5 MB file is up to 30 MB, made whole for each request: 60 clients that read nothing of it
    # each held a copy in the server, 2.7 GB
    import asyncio

    from pnp.serve.app import SENT_CHUNK

    (mini.root / "cards" / "mini" / "notes.yaml").write_text(("# " + '<&>"' * 12 + "\n") * 5_000 + "# " + "<" * 50_000)
    pieces = asyncio.run(_asgi_get(create_app(mini, ["mini"]), "/source/cards/mini/notes.yaml"))
    page = b"".join(pieces).decode()
    assert len(pieces) > 4 and max(map(len, pieces)) < 5 * SENT_CHUNK
    assert page.count('<tr id="L') == 5_001 and page.count("&lt;") == 5_000 * 12 + 50_000
