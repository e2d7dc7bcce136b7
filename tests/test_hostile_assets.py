"""What a received game's assets can make pnp do, beyond the golden bad-input cases: work that must be paid for
from the game's budget, however the icons share it out."""

import base64
import hashlib
import io

import pytest
from PIL import Image

from pnp.errors import LimitError
from pnp.draw import icons
from pnp.template import budget


def _icon_embedding(size: tuple[int, int]) -> bytes:
    picture = io.BytesIO()
    Image.new("RGB", size, (200, 10, 10)).save(picture, "PNG")
    data = base64.b64encode(picture.getvalue()).decode()
    return ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10">'
            f'<image xlink:href="data:image/png;base64,{data}" width="10" height="10"/></svg>').encode()


def test_drawing_an_icons_embedded_picture_is_paid_from_the_games_time():
    """Each of 60 icons of a 3.8-million-pixel picture passed alone; drawn to check them, they took 10 s of
    processor time and 550 MB: the drawing is in the game's time, so the game stops at the icon that spends it."""
    svg = _icon_embedding((1000, 1000))
    digest = hashlib.sha256(svg).digest()
    icons._drawing(svg, digest)  # svglib's part, metered before: read with time to spare
    with budget(seconds=0.0001), pytest.raises(LimitError):
        icons._drawing_problem(svg, digest)
    with budget():
        assert icons._drawing_problem(svg, digest) is None
