// The wide-character ncurses API for Swift. SwiftPM drops pkg-config's _XOPEN_SOURCE flags, so
// the wide-character declarations are asked for here; macros and C globals that Swift cannot
// import are wrapped in small functions.
#ifndef STOREFRONT_CNCURSES_SHIM_H
#define STOREFRONT_CNCURSES_SHIM_H
#define NCURSES_WIDECHAR 1
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#include <locale.h>
#include <wchar.h>
#include <ncursesw/curses.h>

static inline WINDOW *sf_stdscr(void) { return stdscr; }
static inline int sf_colors(void) { return COLORS; }
static inline int sf_color_pairs(void) { return COLOR_PAIRS; }
static inline int sf_lines(void) { return LINES; }
static inline int sf_cols(void) { return COLS; }
static inline int sf_getmaxy(WINDOW *w) { return getmaxy(w); }
static inline int sf_getmaxx(WINDOW *w) { return getmaxx(w); }

static inline attr_t sf_a_normal(void) { return A_NORMAL; }
static inline attr_t sf_a_bold(void) { return A_BOLD; }
static inline attr_t sf_a_dim(void) { return A_DIM; }
static inline attr_t sf_a_reverse(void) { return A_REVERSE; }
static inline attr_t sf_a_underline(void) { return A_UNDERLINE; }

static inline mmask_t sf_button1_clicked(void) { return BUTTON1_CLICKED; }
static inline mmask_t sf_button1_pressed(void) { return BUTTON1_PRESSED; }
static inline mmask_t sf_button1_released(void) { return BUTTON1_RELEASED; }
static inline mmask_t sf_button1_double_clicked(void) { return BUTTON1_DOUBLE_CLICKED; }
static inline mmask_t sf_button4_pressed(void) { return BUTTON4_PRESSED; }
static inline mmask_t sf_button5_pressed(void) { return BUTTON5_PRESSED; }
static inline mmask_t sf_all_mouse_events(void) { return ALL_MOUSE_EVENTS; }

static inline int sf_key_code_yes(void) { return KEY_CODE_YES; }

/// Writes one cell: `text` is a NUL-terminated wide string (a character and its combining marks),
/// with an extended colour pair (pairs above 255 go through setcchar's options pointer).
static inline int sf_put_cell(WINDOW *w, int y, int x, const wchar_t *text, attr_t attributes, int pair) {
    cchar_t cell;
    if (setcchar(&cell, text, attributes, 0, &pair) != OK) return ERR;
    return mvwadd_wch(w, y, x, &cell);
}
#endif
