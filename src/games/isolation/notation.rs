//! Isolation's words: the spec's parameters (read once for the table game
//! and the search), the board checks both apply, the canonical spec, and
//! the position notation.

use crate::games::board::CellState;

/// Isolation's rule parameters as a spec gives them after `isolation:`,
/// `RxC[:a=A,b=B][:misere]`. Read here once for the table game and the
/// search (`src/search/games/isolation.rs`), which differ only in the
/// largest board they take.
pub(crate) struct Params {
    pub rows: u32,
    pub cols: u32,
    /// Start squares given, of player 0 (`a`) and player 1 (`b`).
    pub start: [Option<u32>; 2],
    pub misere: bool,
}

impl Params {
    pub(crate) fn parse(params: &str) -> Result<Params, String> {
        let mut parts = params.split(':');
        let (rows, cols) = crate::games::parse_dims(parts.next().unwrap_or(""))?;
        let mut start = [None, None];
        let mut misere = None;
        // Each parameter once: `a=1,a=2` or `misere:normal` could mean
        // either, so neither is read.
        for part in parts {
            if let Ok(m) = crate::games::play_word(part) {
                if misere.replace(m).is_some() {
                    return Err("the play convention ('misere' or 'normal') is given twice".into());
                }
                continue;
            }
            if part.is_empty() {
                return Err(crate::games::empty_param());
            }
            for kv in part.split(',') {
                if kv.is_empty() {
                    return Err(crate::games::empty_item(part));
                }
                let (k, v) = kv.split_once('=').ok_or_else(|| {
                    format!(
                        "expected a=SQUARE,b=SQUARE or misere, found {}",
                        crate::error::Error::quote(kv)
                    )
                })?;
                let slot = match k {
                    "a" => &mut start[0],
                    "b" => &mut start[1],
                    other => {
                        return Err(format!(
                            "unknown parameter {} (isolation takes a=SQUARE,b=SQUARE and misere)",
                            crate::error::Error::quote(other)
                        ))
                    }
                };
                let v: u32 = crate::games::parse_num(v).ok_or_else(|| {
                    format!(
                        "start square {k}={} is not a square number",
                        crate::error::Error::quote(v)
                    )
                })?;
                if slot.replace(v).is_some() {
                    return Err(format!("start square '{k}' is given twice"));
                }
            }
        }
        Ok(Params {
            rows,
            cols,
            start,
            misere: misere.unwrap_or(false),
        })
    }
}

/// Checks an R×C board of at most `max` squares (`limit` says why, in the
/// error) and its start squares; returns them, a missing one at its default
/// (player 0 on row 0, column ⌊(C−1)/2⌋; player 1 on row R−1, column ⌊C/2⌋).
pub(crate) fn check_board(
    rows: u32,
    cols: u32,
    start: [Option<u32>; 2],
    max: u32,
    limit: &str,
) -> Result<[u32; 2], String> {
    if rows < 2 || cols < 2 {
        return Err(format!(
            "board {rows}x{cols} is too small: rows and columns must be at least 2"
        ));
    }
    let n = u64::from(rows) * u64::from(cols);
    if n > u64::from(max) {
        return Err(format!("board {rows}x{cols} has {n} squares; {limit}"));
    }
    let n = n as u32;
    let a = start[0].unwrap_or((cols - 1) / 2);
    let b = start[1].unwrap_or((rows - 1) * cols + cols / 2);
    for (name, s) in [("a", a), ("b", b)] {
        if s >= n {
            return Err(format!(
                "start square {name}={s} is off the board (squares are 0..{})",
                n - 1
            ));
        }
    }
    if a == b {
        return Err(format!(
            "start squares a and b are both {a}: they must differ"
        ));
    }
    Ok([a, b])
}

/// Reads Isolation's position notation on an R×C board of up to 64
/// squares: rows top to bottom separated by `/`, `.` present, `x` removed,
/// `0` and `1` the pieces. Returns the pieces' squares and the removed mask.
pub(crate) fn parse_board(rows: u32, cols: u32, s: &str) -> Result<([u8; 2], u64), String> {
    let lines: Vec<&str> = s.trim().split('/').collect();
    if lines.len() != rows as usize {
        return Err(format!(
            "expected {rows} rows separated by '/', found {}",
            lines.len()
        ));
    }
    let mut pieces = [None::<u8>; 2];
    let mut removed = 0u64;
    for (r, row) in lines.iter().enumerate() {
        let len = row.chars().count();
        if len != cols as usize {
            return Err(crate::games::row_length(r + 1, row, len, cols, "squares"));
        }
        for (c, ch) in row.chars().enumerate() {
            let sq = r as u32 * cols + c as u32;
            match ch {
                '.' => {}
                'x' | 'X' => removed |= 1u64 << sq,
                '0' | '1' => {
                    let p = usize::from(ch == '1');
                    if pieces[p].is_some() {
                        return Err(format!("player {p}'s piece appears twice"));
                    }
                    pieces[p] = Some(sq as u8);
                }
                other => {
                    return Err(format!(
                    "unexpected '{other}' (use '.' present, 'x' removed, '0' and '1' the pieces)"
                ))
                }
            }
        }
    }
    match pieces {
        [Some(a), Some(b)] => Ok(([a, b], removed)),
        [None, _] => Err("player 0's piece ('0') is missing".into()),
        [_, None] => Err("player 1's piece ('1') is missing".into()),
    }
}

/// The canonical spec, every parameter spelt out: a table's and a search's
/// game are the same game exactly when their specs are equal.
pub(crate) fn spec(rows: u32, cols: u32, start: [u8; 2], misere: bool) -> String {
    format!(
        "isolation:{rows}x{cols}:a={},b={}{}",
        start[0],
        start[1],
        if misere { ":misere" } else { "" }
    )
}

/// Writes a position in the notation [`parse_board`] reads.
pub(crate) fn format_board(rows: u32, cols: u32, pieces: [u8; 2], removed: u64) -> String {
    let n = rows * cols;
    let mut s = String::with_capacity((n + rows) as usize);
    for sq in 0..n {
        if sq > 0 && sq % cols == 0 {
            s.push('/');
        }
        s.push(square(sq, pieces, removed).1);
    }
    s
}

/// What square `sq` holds, and the character the notation writes for it:
/// the one table behind both the notation and the board view.
pub(super) fn square(sq: u32, pieces: [u8; 2], removed: u64) -> (CellState, char) {
    if sq == u32::from(pieces[0]) {
        (CellState::Piece(0), '0')
    } else if sq == u32::from(pieces[1]) {
        (CellState::Piece(1), '1')
    } else if removed & (1u64 << sq) != 0 {
        (CellState::Removed, 'x')
    } else {
        (CellState::Empty, '.')
    }
}
