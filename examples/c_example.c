/*
 * c_example.c: probes an Isolation 4x4 tablebase through the C interface and
 * checks the answers against the published figures (Gao & Li). Exits 0 if
 * every check passes, 1 otherwise; prints each check.
 *
 *   cargo build --release
 *   cc -std=c99 -Wall -Wextra -I include examples/c_example.c \
 *      -L target/release -lretrograde -Wl,-rpath,"$PWD/target/release" -o c_example
 *   ./c_example tablebases/isolation-4x4.rtb
 *
 * tests/files/embed.rs does this under `cargo test` with a freshly solved table.
 */
#include "retrograde.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (cond) {                                                           \
            printf("ok    ");                                                 \
        } else {                                                              \
            printf("FAIL  ");                                                 \
            failures++;                                                       \
        }                                                                     \
        printf(__VA_ARGS__);                                                  \
        printf("\n");                                                         \
    } while (0)

static const char *value_name(int v) {
    switch (v) {
    case RTB_WIN: return "win";
    case RTB_LOSE: return "lose";
    case RTB_TIE: return "tie";
    case RTB_DRAW: return "draw";
    default: return "?";
    }
}

/* Checks that a position (NULL: the start) has the expected value and remoteness. */
static void expect(const rtb_handle *h, const char *pos, int value, int remoteness) {
    int v = -9, r = -9;
    int rc = rtb_probe_position(h, pos, &v, &r);
    CHECK(rc == RTB_OK && v == value && r == remoteness, "%s: %s in %d (expected %s in %d; %s)",
          pos ? pos : "start", rc == RTB_OK ? value_name(v) : "error", r, value_name(value),
          remoteness, rc == RTB_OK ? "ok" : rtb_last_error());
}

/* The ranked moves of a position, in a malloc'd buffer: asks for the length,
 * then retries with a buffer that fits. NULL on error. */
static char *best_moves(const rtb_handle *h, const char *pos) {
    int64_t n = rtb_best_moves(h, pos, NULL, 0);
    if (n < 0) return NULL;
    char *buf = malloc((size_t)n + 1);
    if (!buf) return NULL;
    int64_t m = rtb_best_moves(h, pos, buf, (size_t)n + 1);
    if (m != n) {
        free(buf);
        return NULL;
    }
    return buf;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "tablebases/isolation-4x4.rtb";

    /* Opening: bad paths give NULL and a message. */
    CHECK(rtb_open(NULL) == NULL && strlen(rtb_last_error()) > 0, "rtb_open(NULL): NULL (%s)",
          rtb_last_error());
    CHECK(rtb_open("/nonexistent/none.rtb") == NULL && strstr(rtb_last_error(), "cannot open"),
          "rtb_open(missing file): NULL (%s)", rtb_last_error());

    rtb_handle *h = rtb_open(path);
    if (!h) {
        printf("FAIL  cannot open %s: %s\n", path, rtb_last_error());
        return 1;
    }
    CHECK(strcmp(rtb_last_error(), "") == 0, "rtb_open(%s): a handle, no message", path);

    CHECK(rtb_entries(h) == 3932160, "entries: %lld", (long long)rtb_entries(h));

    /* The spec through a buffer that is too small, then one that fits. */
    char small[8];
    int64_t need = rtb_game_spec(h, small, sizeof small);
    CHECK(need == 22 && small[0] == '\0', "game spec needs %lld bytes; an 8-byte buffer gets \"\"",
          (long long)need);
    char spec[64];
    CHECK(rtb_game_spec(h, spec, sizeof spec) == need && strcmp(spec, "isolation:4x4:a=1,b=14") == 0,
          "game spec: %s", spec);

    /* Published values. */
    expect(h, NULL, RTB_WIN, 11);
    expect(h, ".0../..../..../..1.", RTB_WIN, 11);
    expect(h, "0.../...x/.x../...1", RTB_WIN, 7);
    expect(h, "0.../x.x./.1../....", RTB_LOSE, 8);

    /* By index (the index `retrograde probe --json` reports for 0.../...x/.x../...1). */
    int v = -9, r = -9;
    CHECK(rtb_probe_index(h, 4908, &v, &r) == RTB_OK && v == RTB_WIN && r == 7,
          "index 4908: %s in %d", value_name(v), r);
    CHECK(rtb_probe_index(h, 3932160, &v, &r) == RTB_ERR_RANGE && strstr(rtb_last_error(), "range"),
          "index 3932160: RTB_ERR_RANGE (%s)", rtb_last_error());

    /* Ranked moves at the start: 2x10 is the only winning move (win in 10). */
    char *moves = best_moves(h, NULL);
    CHECK(moves != NULL, "best moves at the start: %lld bytes",
          moves ? (long long)strlen(moves) : -1LL);
    if (moves) {
        CHECK(strncmp(moves, "2x10\t..0./..../..x./..1.\twin\t10\t1\n", 32) == 0,
              "first line: %.*s", (int)strcspn(moves, "\n"), moves);
        int lines = 0, best = 0;
        for (char *line = moves; *line; line = strchr(line, '\n') + 1) {
            lines++;
            const char *tab = line;
            for (int field = 0; field < 4; field++) tab = strchr(tab, '\t') + 1;
            best += tab[0] == '1';
        }
        CHECK(lines == 70 && best == 1, "%d moves, %d best", lines, best);
        free(moves);
    }

    /* Walk the best line to the end: remoteness falls by one per move. */
    char pos[64] = "";
    int steps = 0, r0 = 11, ok = 1;
    for (;;) {
        moves = best_moves(h, steps ? pos : NULL);
        if (!moves || !*moves) {
            free(moves);
            break;
        }
        char mv[16], next[64], val[8];
        int rem = -9, is_best = 0;
        if (sscanf(moves, "%15s %63s %7s %d %d", mv, next, val, &rem, &is_best) != 5 ||
            rem != r0 - 1 - steps || !is_best)
            ok = 0;
        free(moves);
        strcpy(pos, next);
        if (++steps > 20) {
            ok = 0;
            break;
        }
    }
    CHECK(ok && steps == 11, "best line from the start: %d moves, ends at %s", steps, pos);
    expect(h, pos, RTB_LOSE, 0);

    /* Bad input: an error code and a message, never a crash. */
    CHECK(rtb_probe_position(h, "0..x", &v, &r) == RTB_ERR_POSITION &&
              strstr(rtb_last_error(), "bad position '0..x'"),
          "invalid position: RTB_ERR_POSITION (%s)", rtb_last_error());
    CHECK(rtb_best_moves(h, "zz", NULL, 0) == RTB_ERR_POSITION, "invalid position for moves: %s",
          rtb_last_error());
    CHECK(rtb_probe_position(h, "\xff\xfe", &v, &r) == RTB_ERR_UTF8, "invalid UTF-8: %s",
          rtb_last_error());
    CHECK(rtb_probe_position(NULL, NULL, &v, &r) == RTB_ERR_NULL &&
              strstr(rtb_last_error(), "NULL"),
          "NULL handle: RTB_ERR_NULL (%s)", rtb_last_error());
    CHECK(rtb_entries(NULL) == RTB_ERR_NULL, "rtb_entries(NULL): RTB_ERR_NULL");
    CHECK(rtb_probe_position(h, NULL, NULL, &r) == RTB_ERR_NULL, "NULL output: %s",
          rtb_last_error());
    CHECK(rtb_game_spec(h, NULL, 10) == RTB_ERR_NULL, "NULL buffer with length 10: %s",
          rtb_last_error());
    rtb_handle *forged = (rtb_handle *)(void *)&failures;
    CHECK(rtb_probe_position(forged, NULL, &v, &r) == RTB_ERR_HANDLE, "forged handle: %s",
          rtb_last_error());

    /* Opening with flags: a map and a verified open give the same answers;
     * unknown flag bits are refused. */
    rtb_handle *checked = rtb_open_with(path, RTB_OPEN_MMAP | RTB_OPEN_VERIFY);
    CHECK(checked != NULL, "rtb_open_with(RTB_OPEN_MMAP | RTB_OPEN_VERIFY): %s",
          checked ? "a handle" : rtb_last_error());
    if (checked) {
        expect(checked, "0.../...x/.x../...1", RTB_WIN, 7);
        rtb_close(checked);
    }
    CHECK(rtb_open_with(path, 0x80) == NULL && strstr(rtb_last_error(), "unknown flags"),
          "rtb_open_with(unknown flag): NULL (%s)", rtb_last_error());

    /* Closing: a closed handle is rejected, however it is used. */
    CHECK(rtb_close(h) == RTB_OK, "rtb_close: RTB_OK");
    CHECK(rtb_close(h) == RTB_ERR_HANDLE, "second rtb_close: RTB_ERR_HANDLE (%s)",
          rtb_last_error());
    CHECK(rtb_probe_position(h, NULL, &v, &r) == RTB_ERR_HANDLE, "probe after close: %s",
          rtb_last_error());
    CHECK(rtb_close(NULL) == RTB_ERR_NULL, "rtb_close(NULL): RTB_ERR_NULL");

    if (failures) {
        printf("%d check(s) failed\n", failures);
        return 1;
    }
    printf("all checks passed\n");
    return 0;
}
