"""Unit tests of testsupport.ansi_screen: literal escape strings in, cells out (no tmux, no binary)."""
import numpy as np
import pytest

from testsupport.ansi_screen import DEFAULT_BG, DEFAULT_FG, ANSI16, parse, palette256, half_block_pixels

E = "\x1b["


def only(text, **kw):
    return parse(text, **kw).rows[0]


def test_plain_text_gets_the_default_colours_and_is_padded():
    s = parse("ab\nc", width=4, height=3)
    assert (s.width, s.height) == (4, 3)
    assert s.line(0) == "ab  " and s.line(1) == "c   " and s.line(2) == "    "
    assert s.cell(0, 0).fg == DEFAULT_FG and s.cell(0, 0).bg == DEFAULT_BG
    assert s.cell(3, 2).bg == DEFAULT_BG


def test_default_colours_are_configurable():
    row = only(f"a{E}7mb", default_fg=(1, 2, 3), default_bg=(4, 5, 6))
    assert (row[0].fg, row[0].bg) == ((1, 2, 3), (4, 5, 6))
    assert (row[1].fg, row[1].bg) == ((4, 5, 6), (1, 2, 3))


@pytest.mark.parametrize("code,index", [(30, 0), (31, 1), (37, 7), (90, 8), (91, 9), (97, 15)])
def test_sixteen_foreground_colours(code, index):
    assert only(f"{E}{code}mx")[0].fg == ANSI16[index]


@pytest.mark.parametrize("code,index", [(40, 0), (44, 4), (47, 7), (100, 8), (104, 12), (107, 15)])
def test_sixteen_background_colours(code, index):
    assert only(f"{E}{code}mx")[0].bg == ANSI16[index]


def test_the_256_colour_palette():
    assert palette256(1) == (205, 0, 0)
    assert palette256(16) == (0, 0, 0)
    assert palette256(196) == (255, 0, 0)
    assert palette256(21) == (0, 0, 255)
    assert palette256(67) == (95, 135, 175)     # 16 + 36*1 + 6*2 + 3
    assert palette256(231) == (255, 255, 255)
    assert palette256(232) == (8, 8, 8)
    assert palette256(255) == (238, 238, 238)
    with pytest.raises(ValueError):
        palette256(256)


def test_indexed_and_truecolour_foreground_and_background():
    row = only(f"{E}38;5;196ma{E}48;5;232mb{E}38;2;1;2;3mc{E}48;2;250;251;252md")
    assert row[0].fg == (255, 0, 0) and row[0].bg == DEFAULT_BG
    assert row[1].fg == (255, 0, 0) and row[1].bg == (8, 8, 8)
    assert row[2].fg == (1, 2, 3) and row[2].bg == (8, 8, 8)
    assert row[3].fg == (1, 2, 3) and row[3].bg == (250, 251, 252)


def test_colon_sub_parameters():
    row = only(f"{E}38:2::10:20:30ma{E}38:2:40:50:60mb{E}48:5:21mc")
    assert row[0].fg == (10, 20, 30)
    assert row[1].fg == (40, 50, 60)
    assert row[2].bg == (0, 0, 255)


def test_combined_parameters_in_one_sequence():
    row = only(f"{E}1;38;2;9;8;7;48;5;46;7mx{E}0my")
    x, y = row
    assert x.bold and x.reverse
    assert (x.fg, x.bg) == ((0, 255, 0), (9, 8, 7))       # reverse applied: 48;5;46 is green
    assert (y.fg, y.bg, y.bold, y.reverse) == (DEFAULT_FG, DEFAULT_BG, False, False)


def test_39_and_49_restore_the_defaults_and_empty_sgr_resets():
    row = only(f"{E}31;42ma{E}39mb{E}49mc{E}31;42;1md{E}me")
    assert (row[1].fg, row[1].bg) == (DEFAULT_FG, ANSI16[2])
    assert (row[2].fg, row[2].bg) == (DEFAULT_FG, DEFAULT_BG)
    assert row[3].bold and not row[4].bold and row[4].fg == DEFAULT_FG


def test_bold_dim_and_their_reset():
    row = only(f"{E}1ma{E}22mb{E}2;38;2;200;100;0;48;2;0;0;0mc{E}22md")
    assert row[0].bold and not row[1].bold
    assert row[2].dim and row[2].fg == (100, 50, 0)        # halfway to the background
    assert not row[3].dim and row[3].fg == (200, 100, 0)


def test_reverse_and_27():
    row = only(f"{E}31;44;7ma{E}27mb")
    assert (row[0].fg, row[0].bg) == (ANSI16[4], ANSI16[1])
    assert (row[1].fg, row[1].bg) == (ANSI16[1], ANSI16[4])


def test_reverse_of_the_default_colours():
    row = only(f"{E}7m ")
    assert (row[0].fg, row[0].bg) == (DEFAULT_BG, DEFAULT_FG)


def test_the_pen_carries_across_lines_as_tmux_writes_it():
    s = parse(f"{E}48;2;1;1;1ma\nb{E}0m\nc")
    assert s.cell(0, 1).bg == (1, 1, 1)
    assert s.cell(0, 2).bg == DEFAULT_BG


def test_wide_characters_take_two_cells():
    s = parse(f"a{E}31m界b\n1234", width=4)
    assert [c.char for c in s.rows[0]] == ["a", "界", "", "b"]
    assert s.cell(2, 0).fg == ANSI16[1]                    # the continuation cell has the character's colours
    assert s.line(0) == "a界b" and s.find("b") == (3, 0)
    assert s.find("界") == (1, 0)


def test_combining_marks_join_the_character_before():
    row = only("e\u0301x")
    assert [c.char for c in row] == ["e\u0301", "x"]


def test_other_escapes_and_control_characters_are_skipped():
    row = only(f"{E}?25l{E}2;3Ha\x1b]8;;http://x\x07b\x1b]0;title\x1b\\c\rd\x07")
    assert "".join(c.char for c in row) == "abcd"


def test_find_and_text():
    s = parse(f"  {E}1mhello{E}0m world   \nnext")
    assert s.find("world") == (8, 0)
    assert s.find("nope") is None
    assert s.text() == "  hello world\nnext"


def test_half_block_pixels_reads_two_pixels_a_cell():
    red, blue, green = "38;2;255;0;0", "48;2;0;0;255", "38;2;0;255;0"
    s = parse(f"x{E}{red};{blue}m▀▄{E}{green}m█{E}39m \n"
              f"x{E}{red};7m▀{E}27m  {E}0m ", width=5)
    image = half_block_pixels(s, 1, 0, 4, 2)
    assert image.shape == (4, 4, 3) and image.dtype == np.uint8
    assert image[0, 0].tolist() == [255, 0, 0] and image[1, 0].tolist() == [0, 0, 255]      # ▀: fg over bg
    assert image[0, 1].tolist() == [0, 0, 255] and image[1, 1].tolist() == [255, 0, 0]      # ▄: bg over fg
    assert image[0, 2].tolist() == [0, 255, 0] and image[1, 2].tolist() == [0, 255, 0]      # █: fg twice
    assert image[0, 3].tolist() == [0, 0, 255] and image[1, 3].tolist() == [0, 0, 255]      # space: bg twice
    # reverse honoured: ▀ reversed shows the background above
    assert image[2, 0].tolist() == [0, 0, 255] and image[3, 0].tolist() == [255, 0, 0]
    assert image[2, 3].tolist() == list(DEFAULT_BG)


def test_half_block_pixels_refuses_other_characters_unless_told():
    s = parse(f"{E}48;2;7;7;7m▀a")
    with pytest.raises(ValueError, match=r"\(1,0\) holds 'a'"):
        half_block_pixels(s, 0, 0, 2, 1)
    assert half_block_pixels(s, 0, 0, 2, 1, strict=False)[0, 1].tolist() == [7, 7, 7]
    with pytest.raises(ValueError, match="outside"):
        half_block_pixels(s, 1, 0, 2, 1)
