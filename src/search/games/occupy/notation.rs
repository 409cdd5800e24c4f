//! The tables' notation for positions and moves, so that a position
//! string moves between a table game and the search:
//!
//! - m,n,k and pattern games: one character per square (`.`, `x`, `o`),
//!   rows separated by `/` (optional on input); a move is the square number.
//! - Connect: a picture, rows top to bottom, or the columns played
//!   (`4453`, `10,3,3`, `-`); a move is the column 1..=W.
//! - Sogo: layers bottom first separated by `|`, each layer's rows from
//!   rank N down to 1; or the columns played as squares (`a1b2`) or numbers;
//!   a move is the column's square name (`b2`).

use super::build::Kind;
use super::{bit, count, has, or, Bits, Occupy, OccupyPos};
use crate::error::Error;

fn cell_char<const W: usize>(p: &OccupyPos<W>, s: usize) -> char {
    if has(&p.stones[0], s) {
        'x'
    } else if has(&p.stones[1], s) {
        'o'
    } else {
        '.'
    }
}

/// The squares of the display rows, in reading order.
fn display_rows<const W: usize>(g: &Occupy<W>) -> Vec<Vec<usize>> {
    let n = g.layout.n;
    match &g.layout.kind {
        Kind::Mnk { rows, cols, .. } => (0..*rows as usize)
            .map(|r| {
                (0..*cols as usize)
                    .map(|c| r * *cols as usize + c)
                    .collect()
            })
            .collect(),
        Kind::Pattern { rows, .. } => {
            let mut s = 0;
            rows.iter()
                .map(|&len| {
                    let row: Vec<usize> = (s..s + len as usize).collect();
                    s += len as usize;
                    row
                })
                .collect()
        }
        Kind::Connect { w, h, .. } => (0..*h as usize)
            .rev()
            .map(|z| (0..*w as usize).map(|c| c * *h as usize + z).collect())
            .collect(),
        Kind::Sogo { n: side } => {
            let m = *side as usize;
            debug_assert_eq!(m * m * m, n);
            // Layer by layer (bottom first), rank m down to 1 in each.
            (0..m)
                .flat_map(|z| {
                    (0..m)
                        .rev()
                        .map(move |y| (0..m).map(|x| (y * m + x) * m + z).collect())
                })
                .collect()
        }
    }
}

pub fn format_position<const W: usize>(g: &Occupy<W>, p: &OccupyPos<W>) -> String {
    let rows = display_rows(g);
    let layer = match g.layout.kind {
        Kind::Sogo { n } => n as usize,
        _ => usize::MAX,
    };
    let mut out = String::new();
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            out.push(if i % layer == 0 { '|' } else { '/' });
        }
        out.extend(row.iter().map(|&s| cell_char(p, s)));
    }
    out
}

pub fn format_move<const W: usize>(g: &Occupy<W>, s: usize) -> String {
    match g.layout.kind {
        Kind::Mnk { .. } | Kind::Pattern { .. } => s.to_string(),
        Kind::Connect { h, .. } => (s / h as usize + 1).to_string(),
        Kind::Sogo { n } => column_name(n, s as u32 / n),
    }
}

fn column_name(n: u32, c: u32) -> String {
    format!("{}{}", char::from(b'a' + (c % n) as u8), c / n + 1)
}

pub fn parse_position<const W: usize>(g: &Occupy<W>, text: &str) -> Result<OccupyPos<W>, String> {
    let s = text.trim();
    let picture = match g.layout.kind {
        Kind::Mnk { .. } | Kind::Pattern { .. } => true,
        Kind::Connect { .. } => {
            s.contains(['/', '.']) || (!s.is_empty() && s.chars().all(|c| "xoXO".contains(c)))
        }
        Kind::Sogo { .. } => {
            s.contains(['|', '/', '.']) || (!s.is_empty() && s.chars().all(|c| "xoXO".contains(c)))
        }
    };
    if !picture {
        return play_columns(g, s);
    }
    let rows = display_rows(g);
    let stones = match g.layout.kind {
        Kind::Sogo { n } => {
            let layers: Vec<&str> = s.split('|').collect();
            if layers.len() != n as usize {
                return Err(format!(
                    "expected {n} layers separated by '|' (bottom layer first), found {}",
                    layers.len()
                ));
            }
            let mut text = String::new();
            for l in layers {
                let rows: Vec<&str> = l.trim().split('/').collect();
                if rows.len() != n as usize {
                    return Err(format!("expected {n} rows separated by '/' in each layer"));
                }
                text.push_str(&rows.concat());
            }
            cells(&text, &rows)?
        }
        Kind::Connect { h, .. } => {
            let groups: Vec<&str> = s.split('/').map(str::trim).collect();
            if groups.len() != h as usize {
                return Err(format!(
                    "expected {h} rows separated by '/', found {}",
                    groups.len()
                ));
            }
            check_rows(&groups, &rows)?;
            cells(&groups.concat(), &rows)?
        }
        _ => {
            let groups: Vec<&str> = s.split('/').collect();
            if groups.len() > 1 {
                check_rows(&groups, &rows)?;
            }
            cells(&groups.concat(), &rows)?
        }
    };
    check(g, stones)
}

fn check_rows(groups: &[&str], rows: &[Vec<usize>]) -> Result<(), String> {
    if groups.len() != rows.len() {
        return Err(format!(
            "expected {} rows separated by '/', found {}",
            rows.len(),
            groups.len()
        ));
    }
    for (r, (g, want)) in groups.iter().zip(rows).enumerate() {
        let len = g.chars().count();
        if len != want.len() {
            return Err(format!(
                "row {} has {len} squares, expected {}",
                r + 1,
                want.len()
            ));
        }
    }
    Ok(())
}

/// Reads one character per square of `rows` (in reading order).
fn cells<const W: usize>(text: &str, rows: &[Vec<usize>]) -> Result<[Bits<W>; 2], String> {
    let squares: Vec<usize> = rows.concat();
    let len = text.chars().count();
    if len != squares.len() {
        return Err(format!(
            "expected {} squares ('.', 'x' or 'o' each), found {len}",
            squares.len()
        ));
    }
    let mut stones = [[0u64; W]; 2];
    for (ch, &sq) in text.chars().zip(&squares) {
        match ch {
            '.' => {}
            'x' | 'X' => stones[0] = or(&stones[0], &bit(sq)),
            'o' | 'O' => stones[1] = or(&stones[1], &bit(sq)),
            other => {
                return Err(format!(
                    "unexpected '{other}' (use '.' empty, 'x' player 0, 'o' player 1)"
                ))
            }
        }
    }
    Ok(stones)
}

/// Checks a board: piece counts, gravity, and that the player to move owns
/// no pattern (the game would have ended).
fn check<const W: usize>(g: &Occupy<W>, stones: [Bits<W>; 2]) -> Result<OccupyPos<W>, String> {
    let (a, b) = (count(&stones[0]), count(&stones[1]));
    if a != b && a != b + 1 {
        return Err(format!(
            "x has {a} pieces and o has {b}: x moves first, so x has as many as o or one more"
        ));
    }
    if g.bottom.is_some() {
        let occ = or(&stones[0], &stones[1])[0];
        let h = g.height;
        for c in 0..g.layout.n as u32 / h {
            let col = occ >> (c * h) & ((1u64 << h) - 1);
            if col & (col + 1) != 0 {
                return Err(format!(
                    "column {} has a piece above an empty cell (pieces fall to the lowest empty cell)",
                    format_move(g, (c * h) as usize)
                ));
            }
        }
    }
    let p = g.position(stones);
    let m = p.mover();
    match (g.owns(&stones[0]), g.owns(&stones[1])) {
        (true, true) => Err("both players own a pattern: the game ends at the first one".into()),
        (x, o) if [x, o][m] => Err(format!(
            "{} is to move but already owns a pattern: the game ended when it was completed",
            ['x', 'o'][m]
        )),
        _ => Ok(p),
    }
}

/// Parses a list of columns played from the empty board (gravity games).
fn play_columns<const W: usize>(g: &Occupy<W>, s: &str) -> Result<OccupyPos<W>, String> {
    let mut p = OccupyPos {
        stones: [[0u64; W]; 2],
        done: false,
    };
    if s.is_empty() || s == "-" {
        return Ok(p);
    }
    let (cols, side) = match g.layout.kind {
        Kind::Connect { w, .. } => (w, None),
        Kind::Sogo { n } => (n * n, Some(n)),
        _ => unreachable!("only gravity games take move lists"),
    };
    let mut moves: Vec<u32> = Vec::new();
    if let Some(n) = side.filter(|_| s.chars().any(|c| c.is_ascii_alphabetic())) {
        // Sogo squares: a file letter then a rank number.
        let chars: Vec<char> = s
            .chars()
            .filter(|c| !c.is_whitespace() && *c != ',')
            .collect();
        let mut i = 0;
        while i < chars.len() {
            let file = chars[i].to_ascii_lowercase();
            let f = (file as u32).wrapping_sub('a' as u32);
            i += 1;
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            let rank: String = chars[start..i].iter().collect();
            match rank.parse::<u32>() {
                Ok(r) if f < n && (1..=n).contains(&r) => moves.push((r - 1) * n + f),
                _ => {
                    return Err(format!(
                        "move {}: {} is not a column like a1",
                        moves.len() + 1,
                        Error::quote(&format!("{file}{rank}"))
                    ))
                }
            }
        }
    } else {
        let spaced = s.contains(|c: char| c.is_whitespace() || c == ',');
        let tokens: Vec<String> = if spaced {
            s.split(|c: char| c.is_whitespace() || c == ',')
                .filter(|t| !t.is_empty())
                .map(str::to_string)
                .collect()
        } else {
            s.chars().map(String::from).collect()
        };
        for (i, t) in tokens.iter().enumerate() {
            match crate::games::parse_num::<u32>(t) {
                Some(c) if (1..=cols).contains(&c) => moves.push(c - 1),
                _ => {
                    return Err(format!(
                        "move {} {} is not a column number 1..={cols}",
                        i + 1,
                        Error::quote(t)
                    ))
                }
            }
        }
    }
    for (i, &c) in moves.iter().enumerate() {
        if p.done || p.occupied() == g.all {
            return Err(format!("move {}: the game is over", i + 1));
        }
        let h = g.height;
        let col = (p.occupied()[0] >> (c * h)) & ((1u64 << h) - 1);
        let z = col.count_ones();
        if z == h {
            return Err(format!("move {}: the column is full", i + 1));
        }
        let s = (c * h + z) as usize;
        let me = p.mover();
        p.stones[me] = or(&p.stones[me], &bit(s));
        p.done = g.completes(&p.stones[me], s);
    }
    Ok(p)
}
