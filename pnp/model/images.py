"""A game's pictures, opened only as the formats pnp prints: Pillow is never let guess another one, as it
would hand a PostScript file named pic.png to Ghostscript."""

import warnings
from pathlib import Path

from ..errors import DataError
from ..project import Project, open_project_file
from ..report import Mark

IMAGE_FORMATS = ("PNG", "JPEG", "WEBP")  # Pillow's names; ReportLab draws each of them
# a picture printed 600 x 400 mm at 300 dpi is 33 million pixels; ReportLab embeds every pixel, and a picture
# of 100 million took 16 s and 1.8 GB to build: more is a mistake or a decompression bomb
MAX_IMAGE_PIXELS = 40_000_000
MAX_IMAGE_BYTES = 200 * 1024 * 1024  # past any photograph of that many pixels


def checked_image(project: Project, path: Path, mark: Mark, shown: str, decode: bool = False) -> tuple[Path, tuple]:
    """(the file after following links, its (width, height) in pixels) of an image a game names, read from
    its header, or with every pixel decoded when `decode` (a truncated file fails then, not half-way through
    a build). DataError at `mark`, naming the image as `shown`, unless it is an ordinary file inside the
    project, under MAX_IMAGE_BYTES, one of IMAGE_FORMATS and of at most MAX_IMAGE_PIXELS."""
    from PIL import Image, UnidentifiedImageError

    real = project.inside(path, mark, "image", shown=shown)
    with open_project_file(real, MAX_IMAGE_BYTES, mark, "image", shown) as f:
        try:
            with warnings.catch_warnings():  # Pillow warns past its own cap; the one here is checked below
                warnings.simplefilter("ignore", Image.DecompressionBombWarning)
                with Image.open(f, formats=IMAGE_FORMATS) as image:
                    size = image.size
                    if size[0] * size[1] > MAX_IMAGE_PIXELS:
                        raise DataError(f"image '{shown}' cannot be used: {size[0]}x{size[1]} px, more than "
                                        f"{MAX_IMAGE_PIXELS:,} pixels", mark)
                    if decode:
                        image.load()
        except UnidentifiedImageError:
            raise DataError(f"image '{shown}' cannot be used: not a PNG, JPEG or WebP image", mark) from None
        except Image.DecompressionBombError:
            raise DataError(f"image '{shown}' cannot be used: more than {MAX_IMAGE_PIXELS:,} pixels", mark) \
                from None
        except (OSError, ValueError, SyntaxError, EOFError) as e:  # Pillow's errors for damaged files
            raise DataError(f"image '{shown}' cannot be read: {_problem(e)}", mark) from None
    return real, size


def _problem(error: Exception) -> str:
    return str(error).split(" (")[0] or type(error).__name__
