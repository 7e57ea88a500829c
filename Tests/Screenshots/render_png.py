"""Draws a screen of coloured cells (testsupport.ansi_screen) as a PNG, the way a terminal would show it.

Why our own renderer: the README's pictures must come from the real binary in a real terminal (tmux), and a
terminal emulator cannot be screenshotted headless here. Most of conftui's screen is video in half blocks, so those
are not left to a font: `▀ ▄ █`, the other block elements and the box-drawing lines are filled as exact
rectangles of the cell, so two pixels a cell stay two flat pixels with no seams or anti-aliasing between cells.
Every other character is drawn with DejaVu Sans Mono (Debian's fonts-dejavu-core), its bold face for bold cells,
in the cell's foreground colour on its background.

Usage as a module: `render(screen) -> PIL.Image`, `save_png(image, path) -> bytes written`.
"""
import pathlib

import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONT_DIR = pathlib.Path("/usr/share/fonts/truetype/dejavu")
FONT = FONT_DIR / "DejaVuSansMono.ttf"
FONT_BOLD = FONT_DIR / "DejaVuSansMono-Bold.ttf"
CELL_W, CELL_H = 9, 18
# DejaVu Sans Mono advances 0.602 em: 15 px gives 9.03 px, one cell; its ascent plus descent is 18 px, one cell.
FONT_SIZE = 15

# Box drawing: (left, right, up, down) arm weights, 1 light, 2 heavy. Rounded corners are drawn square.
_BOX = {
    "─": (1, 1, 0, 0), "│": (0, 0, 1, 1), "┌": (0, 1, 0, 1), "┐": (1, 0, 0, 1), "└": (0, 1, 1, 0), "┘": (1, 0, 1, 0),
    "├": (0, 1, 1, 1), "┤": (1, 0, 1, 1), "┬": (1, 1, 0, 1), "┴": (1, 1, 1, 0), "┼": (1, 1, 1, 1),
    "━": (2, 2, 0, 0), "┃": (0, 0, 2, 2), "┏": (0, 2, 0, 2), "┓": (2, 0, 0, 2), "┗": (0, 2, 2, 0), "┛": (2, 0, 2, 0),
    "┣": (0, 2, 2, 2), "┫": (2, 0, 2, 2), "┳": (2, 2, 0, 2), "┻": (2, 2, 2, 0), "╋": (2, 2, 2, 2),
    "╭": (0, 1, 0, 1), "╮": (1, 0, 0, 1), "╰": (0, 1, 1, 0), "╯": (1, 0, 1, 0),
    "╴": (1, 0, 0, 0), "╶": (0, 1, 0, 0), "╵": (0, 0, 1, 0), "╷": (0, 0, 0, 1),
}

# Block elements as rectangles in eighths of the cell: (x0, y0, x1, y1), fg inside; shades blend fg over bg.
_BLOCKS = {
    "▀": [(0, 0, 8, 4)], "▄": [(0, 4, 8, 8)], "█": [(0, 0, 8, 8)], "▌": [(0, 0, 4, 8)], "▐": [(4, 0, 8, 8)],
    "▔": [(0, 0, 8, 1)], "▕": [(7, 0, 8, 8)],
    "▖": [(0, 4, 4, 8)], "▗": [(4, 4, 8, 8)], "▘": [(0, 0, 4, 4)], "▝": [(4, 0, 8, 4)],
    "▙": [(0, 0, 4, 8), (4, 4, 8, 8)], "▚": [(0, 0, 4, 4), (4, 4, 8, 8)], "▛": [(0, 0, 8, 4), (0, 4, 4, 8)],
    "▜": [(0, 0, 8, 4), (4, 4, 8, 8)], "▞": [(4, 0, 8, 4), (0, 4, 4, 8)], "▟": [(4, 0, 8, 8), (0, 4, 8, 8)],
}
_BLOCKS.update({chr(0x2580 + n): [(0, 8 - n, 8, 8)] for n in range(1, 8)})      # ▁ to ▇: lower n eighths
_BLOCKS.update({chr(0x2590 - n): [(0, 0, n, 8)] for n in range(1, 8)})          # ▏ to ▉: left n eighths
_SHADES = {"░": 0.25, "▒": 0.5, "▓": 0.75}


def _fonts():
    try:
        return ImageFont.truetype(str(FONT), FONT_SIZE), ImageFont.truetype(str(FONT_BOLD), FONT_SIZE)
    except OSError as error:
        raise SystemExit(f"DejaVu Sans Mono not found in {FONT_DIR} ({error}): install fonts-dejavu-core "
                         "(make deps does)")


def _box_rects(arms, w, h):
    """The rectangles (x0, y0, x1, y1) of a box-drawing character's arms in a w x h cell, lines centred."""
    rects = []
    cx, cy = w // 2, h // 2
    for side, weight in zip("lrud", arms):
        if not weight:
            continue
        t = max(1, w // 9) * (1 if weight == 1 else 2)
        a = t // 2                      # the line covers [c - a, c - a + t)
        if side == "l":
            rects.append((0, cy - a, cx - a + t, cy - a + t))
        elif side == "r":
            rects.append((cx - a, cy - a, w, cy - a + t))
        elif side == "u":
            rects.append((cx - a, 0, cx - a + t, cy - a + t))
        else:
            rects.append((cx - a, cy - a, cx - a + t, h))
    return rects


def _geometry(char, w, h):
    """Rectangles for a character drawn as geometry, or None for one the font draws."""
    if char in _BOX:
        return _box_rects(_BOX[char], w, h)
    if char in _BLOCKS:
        return [(w * x0 // 8, h * y0 // 8, w * x1 // 8, h * y1 // 8) for x0, y0, x1, y1 in _BLOCKS[char]]
    return None


def render(screen, cell_w=CELL_W, cell_h=CELL_H):
    """The screen as an RGB image of screen.width*cell_w x screen.height*cell_h pixels."""
    pixels = np.zeros((screen.height * cell_h, screen.width * cell_w, 3), dtype=np.uint8)
    text = []
    for y, row in enumerate(screen.rows):
        for x, cell in enumerate(row):
            top, left = y * cell_h, x * cell_w
            pixels[top:top + cell_h, left:left + cell_w] = cell.bg
            char = cell.char
            if char in ("", " "):
                continue
            if char in _SHADES:
                share = _SHADES[char]
                pixels[top:top + cell_h, left:left + cell_w] = [round(f * share + b * (1 - share))
                                                                 for f, b in zip(cell.fg, cell.bg)]
                continue
            rects = _geometry(char, cell_w, cell_h)
            if rects is None:
                text.append((x, y, cell))
                continue
            for x0, y0, x1, y1 in rects:
                pixels[top + y0:top + y1, left + x0:left + x1] = cell.fg
    image = Image.fromarray(pixels, "RGB")
    if text:
        regular, bold = _fonts()
        draw = ImageDraw.Draw(image)
        ascent, descent = regular.getmetrics()
        baseline = (cell_h - ascent - descent) // 2 + ascent
        for x, y, cell in text:
            draw.text((x * cell_w, y * cell_h + baseline), cell.char, fill=cell.fg,
                      font=bold if cell.bold else regular, anchor="ls")
    return image


def save_png(image, path, budget=150_000):
    """Writes a compressed PNG and returns its size in bytes.

    A screen of at most 256 colours (text, overlays) goes out as an exact 8-bit palette, much smaller than RGB. One
    with more (video in truecolor) stays RGB, exact, unless that file is over `budget` bytes: then it is quantised
    to 256 colours without dithering (deterministic, and dithering would only add noise the PNG cannot compress),
    so that the repository never takes a large picture.
    """
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    colours = image.getcolors(maxcolors=256)
    if colours is not None:
        image = image.quantize(colors=len(colours), method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    image.save(path, format="PNG", optimize=True)
    if colours is None and budget and path.stat().st_size > budget:
        image.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE) \
            .save(path, format="PNG", optimize=True)
    return path.stat().st_size
