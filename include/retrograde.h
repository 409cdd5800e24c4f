/*
 * retrograde.h: the C interface of the retrograde tablebase reader.
 *
 * Build the library alone, over the reader (no solver), with
 *   cargo build --release --manifest-path capi/Cargo.toml
 * target/release/libretrograde.so (libretrograde.dylib on macOS,
 * retrograde.dll on Windows) and libretrograde.a (static). `cargo build
 * --release` at the repository's root builds them too, with the command
 * line. Link with
 *   cc -I include prog.c -L target/release -lretrograde -Wl,-rpath,$PWD/target/release
 * or statically with
 *   cc -I include prog.c target/release/libretrograde.a -lpthread -ldl -lm
 * tools/retrograde-pc.sh writes a pkg-config file (retrograde.pc); cargo-c's
 * `cargo cinstall --manifest-path capi/Cargo.toml --release --prefix DIR`
 * installs both libraries, this header and the .pc. Implementation:
 * capi/src/lib.rs. Guide: docs/EMBEDDING.md.
 *
 * Conventions
 *   - Functions return RTB_OK (0) or a negative RTB_ERR_* code; those that
 *     return a count or length return it as a non-negative int64_t, or a
 *     negative RTB_ERR_* code. rtb_open returns NULL on error.
 *   - After any call, rtb_last_error() describes the failure on this thread
 *     ("" if the call succeeded).
 *   - NULL, forged and closed handles are rejected with RTB_ERR_NULL or
 *     RTB_ERR_HANDLE; handles are never reused. A handle may be used from
 *     several threads at once.
 *   - Strings passed in are NUL-terminated UTF-8 (RTB_ERR_UTF8 otherwise; a
 *     path may be any bytes on Unix). A string ends at its first NUL byte: a
 *     caller holding length-delimited text (from another language, a network)
 *     must refuse text containing a NUL itself, or the library sees only the
 *     part before it. A NULL position means the game's start position.
 *   - Text out: the functions taking (buf, len) return the text's length in
 *     bytes, without the NUL. The text and its NUL are written only if the
 *     length is < len; otherwise buf gets "" (when len > 0) and the caller
 *     retries with len = result + 1. (buf = NULL, len = 0) asks for the length.
 *   - Values are for the player to move; remoteness is the number of moves
 *     to the end under perfect play, -1 when there is none (a draw, or a
 *     nimber table).
 *
 * What opening checks
 *   rtb_open checks, and refuses with a message naming what is wrong: that
 *   the path is a regular file (not a directory, FIFO, device or socket; a
 *   FIFO is never opened, so this never blocks) of non-zero size; the magic
 *   bytes; the format version; the header length and header CRC; that the
 *   header is consistent (known flags, cell width and encoding, page-aligned
 *   data offset, value counts summing to the entries); that the file length
 *   is exactly the header's plus the cells; and that the game spec parses, is
 *   canonical, and has the file's index scheme, folding and entry count.
 *   It does NOT read the data: one damaged cell behind an intact header is
 *   answered from. RTB_OPEN_VERIFY adds the data CRC (one pass over the
 *   file) before the handle is returned. (`retrograde verify` goes further:
 *   it re-derives every entry from the rules and checks the header's
 *   statistics.)
 *
 * Files that change while open
 *   By default a handle reads the file with positioned reads (pread): if
 *   another process truncates the file, probes past the new end fail with
 *   RTB_ERR_FILE ("the file changed or shrank while open"), and the host
 *   process is unharmed. RTB_OPEN_MMAP maps the file instead: probes are
 *   faster (no system call), but a truncation makes the next probe past the
 *   new end raise SIGBUS, which kills the whole host process, and a disk I/O
 *   error does the same. Use it only for files nothing modifies in place.
 */
#ifndef RETROGRADE_H
#define RETROGRADE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An open tablebase (opaque). */
typedef struct rtb_handle rtb_handle;

/* An open directory of tables, found by game (opaque). */
typedef struct rtb_dir rtb_dir;

/* Game values (what rtb_probe_* store in *value). */
typedef enum rtb_value {
    RTB_WIN = 0,  /* the player to move can force a win */
    RTB_LOSE = 1, /* the player to move loses against perfect play */
    RTB_TIE = 2,  /* perfect play ends with neither player winning */
    RTB_DRAW = 3  /* perfect play never ends (remoteness -1) */
} rtb_value;

/* Status codes. */
enum rtb_status {
    RTB_OK = 0,
    RTB_ERR_NULL = -1,     /* a required pointer (handle, path, output) is NULL */
    RTB_ERR_HANDLE = -2,   /* the handle is not open (never opened, or closed) */
    RTB_ERR_UTF8 = -3,     /* a string argument is not valid UTF-8 */
    RTB_ERR_POSITION = -4, /* the position does not parse, or is not a position */
    RTB_ERR_RANGE = -5,    /* index >= rtb_entries(h) */
    RTB_ERR_FILE = -6,     /* not a usable tablebase file, or another library error */
    RTB_ERR_PANIC = -7,    /* internal error (a bug in the library) */
    RTB_ERR_ARG = -8,      /* an argument is not valid (unknown rtb_open_with flags; a
                              game spec that is not a game with tables) */
    RTB_ERR_KIND = -9,     /* a value table given to rtb_nimber_* */
    RTB_ERR_NO_TABLE = -10 /* no table of the game in the directory; the message is
                              the `retrograde solve SPEC -o PATH` command that makes it */
};

/* What rtb_table_kind returns. */
enum rtb_table_kind {
    RTB_TABLE_VALUE = 0,  /* values and remoteness */
    RTB_TABLE_NIMBER = 1  /* nimbers of an impartial game (solve --nimbers) */
};

/* Flags of rtb_open_with. */
enum rtb_open_flags {
    /* Memory-map the file. HAZARD: if the file is truncated while open, the
     * next probe past its new end raises SIGBUS and kills the process. */
    RTB_OPEN_MMAP = 1,
    /* Check the data CRC (read the whole file) before returning the handle. */
    RTB_OPEN_VERIFY = 2
};

/* Opens a tablebase file and checks its header (see "What opening checks");
 * reads with positioned reads, so a file truncated while open gives
 * RTB_ERR_FILE, never a crash. Same as rtb_open_with(path, 0). NULL on
 * error. */
rtb_handle *rtb_open(const char *path);

/* rtb_open with flags: RTB_OPEN_MMAP, RTB_OPEN_VERIFY, or both (|). Unknown
 * bits are refused: NULL, with the message in rtb_last_error(). */
rtb_handle *rtb_open_with(const char *path, unsigned int flags);

/* Closes a handle: RTB_OK, or RTB_ERR_NULL / RTB_ERR_HANDLE. */
int rtb_close(rtb_handle *h);

/* Number of entries (the size of the game's index space), or RTB_ERR_*. */
int64_t rtb_entries(const rtb_handle *h);

/* The canonical game spec, e.g. "isolation:4x4:a=1,b=14" (text out). */
int64_t rtb_game_spec(const rtb_handle *h, char *buf, size_t len);

/* Value (an rtb_value) and remoteness of the position at an index.
 * RTB_ERR_POSITION if the index holds no position. Outputs written only on
 * RTB_OK. */
int rtb_probe_index(const rtb_handle *h, uint64_t index, int *value, int *remoteness);

/* Value and remoteness of a position in the game's notation, e.g.
 * "0.../...x/.x../...1" for Isolation 4x4 (NULL: the start). */
int rtb_probe_position(const rtb_handle *h, const char *position, int *value,
                       int *remoteness);

/* The legal moves of a position (NULL: the start), best first, as text out,
 * one line per move, fields separated by tabs:
 *     move  position  value  remoteness  best
 * e.g. "2x10\t..0./..../..x./..1.\twin\t10\t1\n": the move, the position it
 * leads to, the value for the player making the move (win, lose, tie, draw),
 * the remoteness of the resulting position (-1: none), and 1 for every move
 * as good as the first (0 otherwise). Moves are ranked shortest win, shortest
 * tie, draws, longest loss. A game-over position gives "" (length 0). */
int64_t rtb_best_moves(const rtb_handle *h, const char *position, char *buf, size_t len);

/* RTB_TABLE_VALUE or RTB_TABLE_NIMBER, or RTB_ERR_*. */
int rtb_table_kind(const rtb_handle *h);

/* The nimber (>= 0; 0: the player to move loses) of the position at an
 * index of a nimber table, or RTB_ERR_* (RTB_ERR_KIND for a value table,
 * RTB_ERR_POSITION if the index holds no position, RTB_ERR_RANGE). */
int64_t rtb_nimber_index(const rtb_handle *h, uint64_t index);

/* The nimber of a position in the game's notation (NULL: the start) of a
 * nimber table, or RTB_ERR_*. A move's nimber is that of the position it
 * leads to (the positions rtb_best_moves lists). */
int64_t rtb_nimber_position(const rtb_handle *h, const char *position);

/* Opens a directory of tables (NULL: $RETROGRADE_TABLES, else
 * "tablebases"). Each game spec finds its table by the game in the files'
 * headers, never by their names; a value table is preferred to a nimber
 * table of the same game. Tables open when first asked for. NULL on error
 * (not a directory). */
rtb_dir *rtb_open_dir(const char *path);

/* Value and remoteness of a position (NULL: the start) of the game `spec`
 * (e.g. "isolation:4x4") from its table in the directory. RTB_ERR_NO_TABLE
 * when the directory holds none (rtb_last_error() says the command that
 * makes it), RTB_ERR_ARG for a spec that is not a game with tables. */
int rtb_dir_probe(const rtb_dir *d, const char *spec, const char *position, int *value,
                  int *remoteness);

/* A handle on the table of `spec` in the directory, for every other call;
 * close it with rtb_close. NULL on error. */
rtb_handle *rtb_dir_table(const rtb_dir *d, const char *spec);

/* Closes a directory (handles from rtb_dir_table stay open): RTB_OK, or
 * RTB_ERR_NULL / RTB_ERR_HANDLE. */
int rtb_dir_close(rtb_dir *d);

/* The last failure's message on this thread ("" after a success). Never
 * NULL; valid until the next rtb_* call on this thread. */
const char *rtb_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* RETROGRADE_H */
