/* The floor for any ncurses program on this machine: start, draw one full frame, stop.
   storefront-bench times it beside the storefront screen's first frame. */
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <ncursesw/curses.h>

int main(void) {
    setlocale(LC_ALL, "");
    initscr();
    cbreak();
    noecho();
    start_color();
    for (int y = 0; y < LINES; y++) {
        for (int x = 0; x < COLS; x++) mvaddch(y, x, (chtype)('a' + (x + y) % 26));
    }
    refresh();
    endwin();
    return 0;
}
