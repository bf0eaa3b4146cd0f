// Swift sees ncursesw's wide-character API only with these defined before the header:
// SwiftPM drops pkg-config's -D flags, so they live here.
#ifndef CARREL_NCURSES_SHIM_H
#define CARREL_NCURSES_SHIM_H
#define _XOPEN_SOURCE_EXTENDED 1
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <sys/ioctl.h>
#include <wchar.h>
#include <ncursesw/curses.h>

// Macros and C globals do not import into Swift 6; these wrap them.
static inline WINDOW *carrel_stdscr(void) { return stdscr; }
static inline int carrel_lines(void) { return getmaxy(stdscr); }
static inline int carrel_cols(void) { return getmaxx(stdscr); }
static inline int carrel_key_f(int n) { return KEY_F(n); }
static inline attr_t carrel_a_bold(void) { return A_BOLD; }
static inline attr_t carrel_a_reverse(void) { return A_REVERSE; }
static inline attr_t carrel_a_underline(void) { return A_UNDERLINE; }
static inline attr_t carrel_a_dim(void) { return A_DIM; }
static inline attr_t carrel_color_pair(int n) { return COLOR_PAIR(n); }
static inline int carrel_has_colors(void) { return has_colors(); }
// ioctl is variadic: the terminal's size as the kernel knows it (0 when unknown).
static inline int carrel_window_size(int fd, int *rows, int *cols) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) != 0) return -1;
    *rows = ws.ws_row;
    *cols = ws.ws_col;
    return 0;
}
#endif
