/* ncursesw: SwiftPM drops pkg-config's -D flags, so the wide-char API must be switched on here. */
#define NCURSES_WIDECHAR 1
#define _XOPEN_SOURCE_EXTENDED 1
#include <locale.h>
#include <ncursesw/curses.h>
static inline attr_t cnc_color_pair(int n) { return COLOR_PAIR(n); }
static const attr_t CNC_A_BOLD = A_BOLD;
static const attr_t CNC_A_REVERSE = A_REVERSE;
static const attr_t CNC_A_DIM = A_DIM;
static const attr_t CNC_A_NORMAL = A_NORMAL;
static inline WINDOW *cnc_stdscr(void) { return stdscr; }
static inline int cnc_lines(void) { return LINES; }
static inline int cnc_cols(void) { return COLS; }
static inline int cnc_colors(void) { return COLORS; }
static inline int cnc_color_pairs(void) { return COLOR_PAIRS; }
