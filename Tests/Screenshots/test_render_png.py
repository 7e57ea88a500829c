"""render_png on a synthetic screen: the PNG's size, and the exact colours of half blocks, boxes and text cells."""
import numpy as np
from PIL import Image

from render_png import CELL_H, CELL_W, render, save_png
from testsupport.ansi_screen import DEFAULT_BG, parse

E = "\x1b["
RED, BLUE = (255, 0, 0), (0, 0, 255)


def test_half_blocks_boxes_and_text_keep_their_colours_in_the_png(tmp_path):
    screen = parse(f"{E}38;2;255;0;0;48;2;0;0;255m▀▄{E}0m│{E}1mA{E}0m \n╭─╮  ", width=5, height=2)
    path = tmp_path / "screen.png"
    size = save_png(render(screen), path)
    assert size == path.stat().st_size and 0 < size < 5000
    png = np.asarray(Image.open(path).convert("RGB"))
    assert png.shape == (2 * CELL_H, 5 * CELL_W, 3)
    half = CELL_H // 2

    def px(x, y):
        return tuple(png[y, x].tolist())

    # ▀: every pixel of the upper half is the foreground, every one of the lower half the background; no seam
    assert {px(x, y) for x in range(CELL_W) for y in range(half)} == {RED}
    assert {px(x, y) for x in range(CELL_W) for y in range(half, CELL_H)} == {BLUE}
    # ▄ beside it: the other way round, up to the cell's edge
    assert px(CELL_W, 0) == BLUE and px(2 * CELL_W - 1, CELL_H - 1) == RED
    # │ in the default colours: a line down the middle of the cell, background on both sides
    mid = 2 * CELL_W + CELL_W // 2
    assert px(mid, 0) != DEFAULT_BG and px(mid, CELL_H - 1) != DEFAULT_BG
    assert px(2 * CELL_W, CELL_H // 2) == DEFAULT_BG
    # ─ on the next row reaches both edges of its cell at mid-height
    assert px(CELL_W, CELL_H + half) == px(2 * CELL_W - 1, CELL_H + half) != DEFAULT_BG
    # A bold letter is drawn with the font: some foreground-ish pixels inside its cell, background at its corner
    letter = png[0:CELL_H, 3 * CELL_W:4 * CELL_W].reshape(-1, 3)
    assert (letter.sum(axis=1) > 500).any()
    assert px(3 * CELL_W, 0) == DEFAULT_BG


def test_a_busy_screen_stays_under_the_budget(tmp_path):
    rng = np.random.default_rng(1)
    rows = []
    for _ in range(40):
        cells = "".join(f"{E}38;2;{r};{g};{b};48;2;{b};{r};{g}m▀" for r, g, b in rng.integers(0, 256, (120, 3)))
        rows.append(cells)
    size = save_png(render(parse("\n".join(rows))), tmp_path / "noise.png", budget=150_000)
    assert size <= 150_000
