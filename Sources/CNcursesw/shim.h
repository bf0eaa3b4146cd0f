// Swift sees ncursesw's wide-character API only with these defined before the header:
// SwiftPM drops pkg-config's -D flags, so they live here.
#ifndef CARREL_NCURSES_SHIM_H
#define CARREL_NCURSES_SHIM_H
#define _XOPEN_SOURCE_EXTENDED 1
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <wchar.h>
#include <ncursesw/curses.h>

// glibc hides wcwidth from Swift.
extern int wcwidth(wchar_t c);

static inline int carrel_wcwidth(unsigned int scalar) { return wcwidth((wchar_t)scalar); }
#endif
