/*
 * retrograde.h: the C interface of the retrograde tablebase reader.
 *
 * Build the library with `cargo build --release`: target/release/libretrograde.so
 * (libretrograde.dylib on macOS, retrograde.dll on Windows). Link with
 *   cc -I include prog.c -L target/release -lretrograde -Wl,-rpath,$PWD/target/release
 * Implementation: src/ffi.rs. Guide: docs/EMBEDDING.md.
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
 *   - Strings passed in are NUL-terminated UTF-8. A NULL position means the
 *     game's start position.
 *   - Text out: the functions taking (buf, len) return the text's length in
 *     bytes, without the NUL. The text and its NUL are written only if the
 *     length is < len; otherwise buf gets "" (when len > 0) and the caller
 *     retries with len = result + 1. (buf = NULL, len = 0) asks for the length.
 *   - Values are for the player to move; remoteness is the number of moves
 *     to the end under perfect play, -1 when there is none (a draw, or a
 *     nimber table).
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
    RTB_ERR_PANIC = -7     /* internal error (a bug in the library) */
};

/* Opens a tablebase file and checks its header. NULL on error. */
rtb_handle *rtb_open(const char *path);

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

/* The last failure's message on this thread ("" after a success). Never
 * NULL; valid until the next rtb_* call on this thread. */
const char *rtb_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* RETROGRADE_H */
