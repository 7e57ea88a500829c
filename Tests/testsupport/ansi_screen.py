"""A screen of coloured cells read from `tmux capture-pane -p -e` output.

Why: the end-to-end tests and the README's screenshots need what a terminal *shows*, not just its text: the colours
of a video tile (conftui draws two pixels a cell with `▀`/`▄`), the status bar's background, a bold label.
tmux re-emits every cell's attributes as SGR escapes (`ESC [ ... m`) in `capture-pane -e`, carrying them from one
cell to the next and from one line to the next, so this module replays those escapes the way a terminal would and
keeps, for each cell, the character and the RGB colours it is seen in.

- Colours are resolved to RGB at once: the 16 ANSI colours as xterm's defaults (the ones conftui's `Palette`
  assumes), the 6x6x6 cube and the grey ramp, 24-bit colour as given; the default colours are configurable
  (light grey on near-black unless told otherwise).
- Reverse video is applied (a cell's `fg` and `bg` are what is seen); dim mixes the foreground halfway to the
  background; bold is kept as a flag (no brightening of colours 30-37, as modern terminals do).
- A wide character (East Asian width W or F) takes two cells, as on a terminal; tmux prints it once, so its second
  cell is a continuation cell whose `char` is "". A combining mark joins the character before it.
- Anything that is not SGR (other CSI sequences, OSC strings, control characters) is skipped.

`half_block_pixels` turns a rectangle of `▀ ▄ █` and space cells back into an RGB image of two pixels a cell.
"""
import dataclasses
import re
import unicodedata

DEFAULT_FG = (229, 229, 229)
DEFAULT_BG = (18, 18, 18)

# xterm's defaults for indices 0-15 (Sources/Renderer/Palette.swift assumes the same).
ANSI16 = [
    (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
    (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255),
    (255, 255, 255),
]
CUBE_LEVELS = (0, 95, 135, 175, 215, 255)

UPPER_HALF, LOWER_HALF, FULL_BLOCK = "\u2580", "\u2584", "\u2588"


def palette256(n):
    """The RGB of xterm colour index n (0-255)."""
    if not 0 <= n <= 255:
        raise ValueError(f"colour index {n} out of 0-255")
    if n < 16:
        return ANSI16[n]
    if n >= 232:
        g = 8 + 10 * (n - 232)
        return (g, g, g)
    k = n - 16
    return (CUBE_LEVELS[k // 36], CUBE_LEVELS[k // 6 % 6], CUBE_LEVELS[k % 6])


@dataclasses.dataclass(frozen=True)
class Cell:
    """One character cell as seen: `fg`/`bg` already reversed or dimmed when the cell was."""
    char: str = " "
    fg: tuple = DEFAULT_FG
    bg: tuple = DEFAULT_BG
    bold: bool = False
    dim: bool = False
    reverse: bool = False


@dataclasses.dataclass
class Screen:
    width: int
    height: int
    rows: list            # rows[y][x] is a Cell

    def cell(self, x, y):
        return self.rows[y][x]

    def line(self, y):
        """Row y's text (continuation cells of wide characters left out), trailing blanks kept."""
        return "".join(c.char for c in self.rows[y])

    def text(self):
        """The whole screen as text, each line right-stripped, like `capture-pane -p`."""
        return "\n".join(self.line(y).rstrip() for y in range(self.height))

    def find(self, needle):
        """(column, row) of the first occurrence of needle, in cells; None when absent."""
        for y in range(self.height):
            chars = [c.char for c in self.rows[y]]
            for x in range(self.width):
                if chars[x] and "".join(chars[x:]).startswith(needle):
                    return x, y
        return None


class _Pen:
    """The SGR state: what the next printed character gets."""

    def __init__(self, default_fg, default_bg):
        self.default_fg, self.default_bg = default_fg, default_bg
        self.reset()

    def reset(self):
        self.fg, self.bg = None, None    # None: the default colour
        self.bold = self.dim = self.reverse = False

    def cell(self, char):
        fg = self.fg if self.fg is not None else self.default_fg
        bg = self.bg if self.bg is not None else self.default_bg
        if self.reverse:
            fg, bg = bg, fg
        if self.dim:
            fg = tuple((f + b) // 2 for f, b in zip(fg, bg))
        return Cell(char, fg, bg, self.bold, self.dim, self.reverse)

    def apply(self, params):
        """Applies one SGR sequence's parameter string (e.g. "0;38;2;1;2;3" or "38:5:196")."""
        fields = params.split(";") if params else ["0"]
        i = 0
        while i < len(fields):
            field = fields[i]
            if ":" in field:          # ITU T.416 sub-parameters: 38:2:[colourspace:]r:g:b, 38:5:n
                self._extended(field.split(":"), colon=True)
                i += 1
                continue
            p = int(field) if field.isdigit() else 0
            if p in (38, 48):
                consumed = self._extended(fields[i:], colon=False)
                i += consumed
                continue
            self._simple(p)
            i += 1

    def _simple(self, p):
        if p == 0:
            self.reset()
        elif p == 1:
            self.bold = True
        elif p == 2:
            self.dim = True
        elif p == 22:
            self.bold = self.dim = False
        elif p == 7:
            self.reverse = True
        elif p == 27:
            self.reverse = False
        elif 30 <= p <= 37:
            self.fg = ANSI16[p - 30]
        elif 90 <= p <= 97:
            self.fg = ANSI16[p - 90 + 8]
        elif p == 39:
            self.fg = None
        elif 40 <= p <= 47:
            self.bg = ANSI16[p - 40]
        elif 100 <= p <= 107:
            self.bg = ANSI16[p - 100 + 8]
        elif p == 49:
            self.bg = None
        # anything else (italic, underline, blink, ...) does not change colours: ignored

    def _extended(self, fields, colon):
        """38/48 followed by 5;n or 2;r;g;b; returns how many `;` fields it used (all of them when colon)."""
        nums = [int(f) if f.isdigit() else 0 for f in fields]
        target = "fg" if nums[0] == 38 else "bg"
        colour, used = None, 1
        if len(nums) >= 2 and nums[1] == 5 and len(nums) >= 3:
            colour, used = palette256(min(nums[2], 255)), 3
        elif len(nums) >= 2 and nums[1] == 2:
            rgb = nums[2:]
            if colon and len(rgb) >= 4:     # 38:2:colourspace:r:g:b
                rgb = rgb[1:]
            if len(rgb) >= 3:
                colour, used = tuple(min(v, 255) for v in rgb[:3]), 5
        elif len(nums) >= 2:
            used = 2
        if colour is not None:
            setattr(self, target, colour)
        return len(fields) if colon else max(1, min(used, len(fields)))


_TOKEN = re.compile(r"\x1b\[([0-9;:<=>?]*)([ -/]*[@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b.?|[\x00-\x1f\x7f]|[^\x00-\x1f\x7f\x1b]+")


def char_width(ch):
    """Cells a character takes: 2 for East Asian wide and fullwidth, 0 for combining marks, else 1."""
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me") or ch == "\u200d":
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def parse(capture, width=None, height=None, default_fg=DEFAULT_FG, default_bg=DEFAULT_BG):
    """The screen a `capture-pane -p -e` (ideally with `-N`) output shows.

    width and height default to the widest line and the number of lines; shorter lines are padded with blank cells
    in the default colours (tmux leaves out what was never written, and without `-N` trailing blanks), longer ones
    are cut. The SGR state carries across lines, as tmux writes it.
    """
    lines = capture.split("\n")
    if lines and lines[-1] == "":
        lines = lines[:-1]
    pen = _Pen(default_fg, default_bg)
    parsed = []
    for text in lines:
        row = []
        for match in _TOKEN.finditer(text):
            token = match.group(0)
            if token.startswith("\x1b"):
                if match.group(2) == "m":
                    pen.apply(match.group(1))
                continue
            if len(token) == 1 and (token < " " or token == "\x7f"):
                continue
            for ch in token:
                w = char_width(ch)
                if w == 0:
                    base = len(row) - 1
                    while base >= 0 and row[base].char == "":
                        base -= 1
                    if base >= 0:
                        row[base] = dataclasses.replace(row[base], char=row[base].char + ch)
                    continue
                cell = pen.cell(ch)
                row.append(cell)
                if w == 2:
                    row.append(dataclasses.replace(cell, char=""))
        parsed.append(row)
    width = width if width is not None else max((len(r) for r in parsed), default=0)
    height = height if height is not None else len(parsed)
    blank = Cell(" ", default_fg, default_bg)
    rows = []
    for y in range(height):
        row = parsed[y][:width] if y < len(parsed) else []
        rows.append(row + [blank] * (width - len(row)))
    return Screen(width, height, rows)


def half_block_pixels(screen, left, top, cols, rows, strict=True):
    """The picture drawn in half blocks in a rectangle of cells: a numpy uint8 array of shape (rows*2, cols, 3).

    Each cell gives two pixels, its upper and lower half: `▀` is fg over bg, `▄` bg over fg, `█` fg twice, a space bg
    twice (reverse video is already in the cell's colours). With strict (the default) any other character raises
    ValueError naming the cell, so a rectangle that strays onto a label or an overlay is caught; strict=False takes
    its background for both pixels.
    """
    import numpy as np

    if left < 0 or top < 0 or left + cols > screen.width or top + rows > screen.height:
        raise ValueError(f"rectangle {cols}x{rows} at ({left},{top}) is outside the {screen.width}x{screen.height} screen")
    image = np.zeros((rows * 2, cols, 3), dtype=np.uint8)
    for y in range(rows):
        for x in range(cols):
            cell = screen.cell(left + x, top + y)
            if cell.char == UPPER_HALF:
                upper, lower = cell.fg, cell.bg
            elif cell.char == LOWER_HALF:
                upper, lower = cell.bg, cell.fg
            elif cell.char == FULL_BLOCK:
                upper = lower = cell.fg
            elif cell.char == " " or not strict:
                upper = lower = cell.bg
            else:
                raise ValueError(f"cell ({left + x},{top + y}) holds {cell.char!r}, not a half block or a space")
            image[2 * y, x] = upper
            image[2 * y + 1, x] = lower
    return image
