//! What a spec describes: the board's squares, its winning patterns (as
//! square lists), its candidate symmetries and its notation. The same specs
//! as the table games (`mnk:RxCxK`, `tictactoe`, `connect:WxH[xK][:misere]`,
//! `sogo:N[:misere]`, `pattern:PATH` or the inline canonical pattern spec),
//! with the enumeration limits lifted to what a bitboard of 256 squares
//! (64 with gravity) holds.

use crate::error::Error;
use crate::games::symmetry::grid_perms;
use crate::games::{parse_num, parse_play};

/// Most squares of a board without gravity (four 64-bit words).
pub const MAX_SQUARES: usize = 256;

/// Most cells of a gravity board (one 64-bit word).
pub const MAX_GRAVITY_CELLS: usize = 64;

/// Most patterns a pattern file may list (as the tables).
const MAX_PATTERNS: usize = 10_000;

/// Largest pattern file read.
const MAX_FILE_BYTES: u64 = 4 << 20;

/// The game family: it decides the spec and the notation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// K in a row on R×C.
    #[allow(missing_docs)]
    Mnk { rows: u32, cols: u32, k: u32 },
    /// Connect-Four family: W columns of H cells, K in a row.
    #[allow(missing_docs)]
    Connect { w: u32, h: u32, k: u32 },
    /// Sogo on an N×N×N cube with gravity.
    #[allow(missing_docs)]
    Sogo { n: u32 },
    /// A pattern file: its name and display rows (squares per row).
    #[allow(missing_docs)]
    Pattern { name: String, rows: Vec<u32> },
}

/// A board as a spec describes it, before the bitboards are built.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The family (spec and notation).
    pub kind: Kind,
    /// Completing a pattern loses.
    pub misere: bool,
    /// Number of squares (cells).
    pub n: usize,
    /// Minimal winning patterns, each a sorted square list, in canonical
    /// order (sorted lists, no repeats, no pattern containing another).
    pub patterns: Vec<Vec<u16>>,
    /// Candidate symmetries as square permutations (identity included);
    /// those that do not map the patterns onto themselves are dropped later.
    pub perms: Vec<Vec<u16>>,
    /// Gravity: the column height (cells `c·H + z`, z = 0 at the bottom).
    pub height: Option<u32>,
    /// Per square, a rank for move-order tie-breaks: smaller is more
    /// central (gravity games: the column's distance from the centre).
    pub centre: Vec<u32>,
}

impl Layout {
    /// The canonical spec, as the table game writes it.
    pub fn spec(&self) -> String {
        let mis = if self.misere { ":misere" } else { "" };
        match &self.kind {
            Kind::Mnk { rows, cols, k } => format!("mnk:{rows}x{cols}x{k}"),
            Kind::Connect { w, h, k } => format!("connect:{w}x{h}x{k}{mis}"),
            Kind::Sogo { n } => format!("sogo:{n}{mis}"),
            Kind::Pattern { name, rows } => {
                let mut s = format!("pattern:{name}:squares={}", self.n);
                if rows.len() > 1 {
                    let r: Vec<String> = rows.iter().map(u32::to_string).collect();
                    s.push_str(&format!(":rows={}", r.join(".")));
                }
                let lines: Vec<String> = self
                    .patterns
                    .iter()
                    .map(|p| p.iter().map(u16::to_string).collect::<Vec<_>>().join("."))
                    .collect();
                s.push_str(&format!(":lines={}", lines.join(",")));
                s
            }
        }
    }
}

/// The layout of `spec`, `None` if its name is not an occupy game's.
pub fn layout(spec: &str) -> Option<Result<Layout, String>> {
    let (name, params) = spec.split_once(':').unwrap_or((spec, ""));
    let r = match name {
        "tictactoe" if spec.contains(':') => Err("tictactoe takes no parameters".to_string()),
        "tictactoe" => mnk(3, 3, 3),
        "mnk" => mnk_params(params),
        "connect" => connect_params(params),
        "sogo" => sogo_params(params),
        "pattern" => pattern_params(params),
        _ => return None,
    };
    Some(r.map_err(|reason| {
        Error::BadGame {
            spec: spec.to_string(),
            reason,
        }
        .to_string()
    }))
}

fn num(t: &str, usage: &str) -> Result<u32, String> {
    parse_num::<u32>(t).ok_or_else(|| format!("{} is not a number ({usage})", Error::quote(t)))
}

fn mnk_params(params: &str) -> Result<Layout, String> {
    let usage = "expected mnk:RxCxK, e.g. mnk:4x4x4";
    let parts: Vec<&str> = params.split(['x', 'X']).collect();
    let [r, c, k] = parts[..] else {
        return Err(usage.into());
    };
    mnk(num(r, usage)?, num(c, usage)?, num(k, usage)?)
}

/// The 48 symmetries of an m×m×m cube, square `(a·m + b)·m + c`.
fn cube_perms(m: usize) -> Vec<Vec<u16>> {
    let mut out = Vec::new();
    let axes = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    for ax in axes {
        for flips in 0..8 {
            let p: Vec<u16> = (0..m * m * m)
                .map(|s| {
                    let v = [s / (m * m), s / m % m, s % m];
                    let mut w = [0; 3];
                    for i in 0..3 {
                        w[i] = v[ax[i]];
                        if flips >> i & 1 != 0 {
                            w[i] = m - 1 - w[i];
                        }
                    }
                    ((w[0] * m + w[1]) * m + w[2]) as u16
                })
                .collect();
            out.push(p);
        }
    }
    out
}

fn mnk(rows: u32, cols: u32, k: u32) -> Result<Layout, String> {
    if rows == 0 || cols == 0 || rows > 16 || cols > 16 {
        return Err(format!(
            "board {rows}x{cols}: rows and columns must be 1 to 16"
        ));
    }
    if k == 0 || k > rows.max(cols) {
        return Err(format!(
            "k = {k} does not fit: on {rows}x{cols} k must be 1 to {}",
            rows.max(cols)
        ));
    }
    let (r, c, kk) = (rows as i32, cols as i32, k as i32);
    let mut patterns = Vec::new();
    for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
        for r0 in 0..r {
            for c0 in 0..c {
                let (r1, c1) = (r0 + dr * (kk - 1), c0 + dc * (kk - 1));
                if !(0..r).contains(&r1) || !(0..c).contains(&c1) {
                    continue;
                }
                patterns.push(
                    (0..kk)
                        .map(|i| ((r0 + dr * i) * c + c0 + dc * i) as u16)
                        .collect(),
                );
            }
        }
    }
    let n = (rows * cols) as usize;
    Ok(Layout {
        kind: Kind::Mnk { rows, cols, k },
        misere: false,
        n,
        patterns: minimal(patterns),
        perms: grid_perms(rows, cols),
        height: None,
        centre: vec![0; n],
    })
}

/// Every line of `k` cells of an `nx × ny × h` box along its 13
/// directions, cell `(x + nx·y)·h + z`: the gravity board's lines.
fn box_lines(nx: u32, ny: u32, h: u32, k: u32) -> Vec<Vec<u16>> {
    let dims = [nx as i64, ny as i64, h as i64];
    let mut out = Vec::new();
    for dx in -1i64..=1 {
        for dy in -1i64..=1 {
            for dz in -1i64..=1 {
                if (dx, dy, dz) <= (0, 0, 0) {
                    continue;
                }
                for x in 0..dims[0] {
                    for y in 0..dims[1] {
                        for z in 0..dims[2] {
                            let cells: Option<Vec<u16>> = (0..k as i64)
                                .map(|i| {
                                    let (a, b, c) = (x + i * dx, y + i * dy, z + i * dz);
                                    let inside = (0..dims[0]).contains(&a)
                                        && (0..dims[1]).contains(&b)
                                        && (0..dims[2]).contains(&c);
                                    inside.then_some(((a + b * dims[0]) * dims[2] + c) as u16)
                                })
                                .collect();
                            out.extend(cells);
                        }
                    }
                }
            }
        }
    }
    out
}

/// Floor symmetries of a gravity board as cell permutations: each maps
/// columns, keeping levels.
fn floor_perms(nx: u32, ny: u32, h: u32) -> Vec<Vec<u16>> {
    grid_perms(ny, nx)
        .iter()
        .map(|cols| {
            (0..nx * ny * h)
                .map(|cell| (u32::from(cols[(cell / h) as usize]) * h + cell % h) as u16)
                .collect()
        })
        .collect()
}

fn gravity(nx: u32, ny: u32, h: u32, k: u32, misere: bool, kind: Kind) -> Result<Layout, String> {
    let n = (nx * ny * h) as usize;
    let patterns = box_lines(nx, ny, h, k);
    if patterns.is_empty() {
        return Err(format!("no line of {k} fits on the board"));
    }
    // Centre columns first: distance of the column from the floor's centre
    // (doubled to stay integral).
    let centre = (0..n as u32)
        .map(|cell| {
            let col = cell / h;
            let (x, y) = (col % nx, col / nx);
            (2 * x).abs_diff(nx - 1) + (2 * y).abs_diff(ny - 1)
        })
        .collect();
    Ok(Layout {
        kind,
        misere,
        n,
        patterns: minimal(patterns),
        perms: floor_perms(nx, ny, h),
        height: Some(h),
        centre,
    })
}

fn connect_params(params: &str) -> Result<Layout, String> {
    let (size, rest) = match params.split_once(':') {
        Some((s, r)) => (s, Some(r)),
        None => (params, None),
    };
    let usage = "expected connect:WxH or connect:WxHxK, e.g. connect:7x6";
    let nums: Vec<&str> = size.split(['x', 'X']).collect();
    let (w, h, k) = match nums[..] {
        [w, h] => (num(w, usage)?, num(h, usage)?, 4),
        [w, h, k] => (num(w, usage)?, num(h, usage)?, num(k, usage)?),
        _ => return Err(usage.into()),
    };
    let misere = parse_play(rest)?;
    if w == 0 || h == 0 || k == 0 {
        return Err("width, height and line length must be at least 1".into());
    }
    if u64::from(w) * u64::from(h) > MAX_GRAVITY_CELLS as u64 {
        return Err(format!("{w}x{h} has more than {MAX_GRAVITY_CELLS} cells"));
    }
    gravity(w, 1, h, k, misere, Kind::Connect { w, h, k })
}

fn sogo_params(params: &str) -> Result<Layout, String> {
    let (size, rest) = match params.split_once(':') {
        Some((s, r)) => (s, Some(r)),
        None => (params, None),
    };
    let n = num(size, "expected sogo:N, e.g. sogo:4")?;
    let misere = parse_play(rest)?;
    if !(1..=4).contains(&n) {
        return Err(format!("the cube side is 1 to 4, not {n}"));
    }
    gravity(n, n, n, n, misere, Kind::Sogo { n })
}

/// Sorted, deduplicated, and without patterns containing another (owning
/// one means owning the smaller first): the tables' canonical pattern list.
pub fn minimal(mut patterns: Vec<Vec<u16>>) -> Vec<Vec<u16>> {
    for p in patterns.iter_mut() {
        p.sort_unstable();
    }
    patterns.sort();
    patterns.dedup();
    let sets: Vec<[u64; 4]> = patterns
        .iter()
        .map(|p| {
            let mut m = [0u64; 4];
            for &s in p {
                m[s as usize / 64] |= 1 << (s % 64);
            }
            m
        })
        .collect();
    let subset = |a: &[u64; 4], b: &[u64; 4]| (0..4).all(|i| a[i] & !b[i] == 0);
    patterns
        .into_iter()
        .enumerate()
        .filter(|(i, _)| {
            !sets
                .iter()
                .enumerate()
                .any(|(j, q)| j != *i && subset(q, &sets[*i]))
        })
        .map(|(_, p)| p)
        .collect()
}

fn check_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= 32
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "name {} must be 1 to 32 letters, digits, '-' or '_'",
            Error::quote(name)
        ))
    }
}

fn pattern_params(params: &str) -> Result<Layout, String> {
    if params.is_empty() {
        return Err("expected pattern:PATH or pattern:NAME:squares=N:lines=A.B.C,...".into());
    }
    let fields: Vec<&str> = params.split(':').collect();
    let inline = fields.len() > 1
        && fields[1..].iter().all(|f| {
            ["squares=", "rows=", "lines="]
                .iter()
                .any(|k| f.starts_with(k))
        });
    if inline {
        pattern_inline(fields[0], &fields[1..])
    } else {
        pattern_file(params)
    }
}

fn pattern_inline(name: &str, fields: &[&str]) -> Result<Layout, String> {
    let (mut n, mut rows, mut lines) = (None, Vec::new(), None);
    for f in fields {
        let (k, v) = f.split_once('=').unwrap_or((f, ""));
        match k {
            "squares" => n = Some(num(v, "squares=N")? as usize),
            "rows" => {
                rows = v
                    .split('.')
                    .map(|t| num(t, "rows=A.B..."))
                    .collect::<Result<_, _>>()?;
            }
            _ => lines = Some(v),
        }
    }
    let n = match n {
        Some(n) => n,
        None if !rows.is_empty() => rows.iter().sum::<u32>() as usize,
        None => return Err("missing squares=N".into()),
    };
    let lines = lines.ok_or("missing lines=A.B.C,...")?;
    let patterns = lines
        .split(',')
        .map(|l| {
            l.split('.')
                .map(|t| num(t, "a square number"))
                .collect::<Result<Vec<u32>, _>>()
        })
        .collect::<Result<Vec<_>, _>>()?;
    pattern_layout(name, n, rows, patterns)
}

fn pattern_file(path: &str) -> Result<Layout, String> {
    use std::io::Read;
    let shown = Error::quote(path);
    let cannot = |e: std::io::Error| format!("cannot read pattern file {shown}: {e}");
    let meta = std::fs::metadata(path).map_err(cannot)?;
    if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
        return Err(format!(
            "pattern file {shown} is not a regular file of at most {MAX_FILE_BYTES} bytes"
        ));
    }
    let mut text = String::new();
    std::fs::File::open(path)
        .map_err(cannot)?
        .take(MAX_FILE_BYTES)
        .read_to_string(&mut text)
        .map_err(cannot)?;
    pattern_text(&text, path)
}

/// Parses a pattern file's text (the tables' format; see
/// [`crate::games::pattern`]), with up to [`MAX_SQUARES`] squares.
pub fn pattern_text(text: &str, source: &str) -> Result<Layout, String> {
    let (mut name, mut squares, mut rows) = (None, None, Vec::new());
    let mut patterns = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let err = |m: String| format!("{source} line {}: {m}", i + 1);
        let line = raw.split('#').next().unwrap_or("").trim();
        let tokens: Vec<&str> = line
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|t| !t.is_empty())
            .collect();
        let Some((&key, args)) = tokens.split_first() else {
            continue;
        };
        match key {
            "name" => {
                let [v] = args else {
                    return Err(err("expected 'name NAME'".into()));
                };
                check_name(v).map_err(err)?;
                name = Some(v.to_string());
            }
            "squares" => {
                let [v] = args else {
                    return Err(err("expected 'squares N'".into()));
                };
                squares = Some(num(v, "squares N").map_err(err)? as usize);
            }
            "rows" => {
                rows = args
                    .iter()
                    .map(|t| num(t, "rows N N ..."))
                    .collect::<Result<_, _>>()
                    .map_err(err)?;
            }
            k if k.starts_with(|c: char| c.is_ascii_digit()) => {
                let p = tokens
                    .iter()
                    .map(|t| num(t, "a square number"))
                    .collect::<Result<Vec<u32>, _>>();
                patterns.push(p.map_err(err)?);
            }
            other => return Err(err(format!("unknown keyword {}", Error::quote(other)))),
        }
    }
    let name = name.ok_or_else(|| format!("{source}: no 'name' line"))?;
    let row_sum = rows.iter().sum::<u32>() as usize;
    let n = match squares {
        Some(n) if !rows.is_empty() && n != row_sum => {
            return Err(format!(
                "{source}: the rows hold {row_sum} squares but squares is {n}"
            ))
        }
        Some(n) => n,
        None if !rows.is_empty() => row_sum,
        None => return Err(format!("{source}: give 'squares N' or 'rows'")),
    };
    pattern_layout(&name, n, rows, patterns).map_err(|e| format!("{source}: {e}"))
}

fn pattern_layout(
    name: &str,
    n: usize,
    rows: Vec<u32>,
    lists: Vec<Vec<u32>>,
) -> Result<Layout, String> {
    check_name(name)?;
    if n == 0 || n > MAX_SQUARES {
        return Err(format!("a board has 1 to {MAX_SQUARES} squares, not {n}"));
    }
    let rows = if rows.is_empty() {
        vec![n as u32]
    } else {
        rows
    };
    if rows.contains(&0) || rows.iter().sum::<u32>() as usize != n {
        return Err(format!(
            "the rows must hold the {n} squares, at least one each"
        ));
    }
    let mut patterns = Vec::new();
    for l in lists {
        let mut p: Vec<u16> = Vec::new();
        for s in l {
            if s as usize >= n {
                return Err(format!(
                    "square {s} is off the board (squares are 0..{})",
                    n - 1
                ));
            }
            if p.contains(&(s as u16)) {
                return Err(format!("square {s} appears twice in a pattern"));
            }
            p.push(s as u16);
        }
        if p.is_empty() {
            return Err("a pattern is empty".into());
        }
        patterns.push(p);
    }
    if patterns.is_empty() {
        return Err("there are no winning patterns".into());
    }
    let patterns = minimal(patterns);
    if patterns.len() > MAX_PATTERNS {
        return Err(format!(
            "{} patterns; at most {MAX_PATTERNS}",
            patterns.len()
        ));
    }
    // Candidates: the rectangle's grid symmetries (as the tables fold) and,
    // on m³ squares, the cube's 48 (Qubic, cube.txt); only those mapping the
    // patterns onto themselves are kept, and the group they generate used.
    let mut perms = if rows.iter().all(|&r| r == rows[0]) {
        grid_perms(rows.len() as u32, rows[0])
    } else {
        vec![(0..n as u16).collect()]
    };
    let m = (1..=6).find(|m| m * m * m == n);
    if let Some(m) = m.filter(|&m| m >= 2) {
        perms.extend(cube_perms(m));
    }
    Ok(Layout {
        kind: Kind::Pattern {
            name: name.to_string(),
            rows,
        },
        misere: false,
        n,
        patterns,
        perms,
        height: None,
        centre: vec![0; n],
    })
}

/// The symmetries among `perms` that map the pattern set onto itself,
/// closed under composition (so that a minimum over images is a canonical
/// form), identity first. Capped at `cap` elements.
pub fn symmetry_group(
    perms: &[Vec<u16>],
    patterns: &[Vec<u16>],
    n: usize,
    cap: usize,
) -> Vec<Vec<u16>> {
    let mut sorted: Vec<Vec<u16>> = patterns.to_vec();
    sorted.sort();
    let keeps = |p: &Vec<u16>| {
        let mut image: Vec<Vec<u16>> = sorted
            .iter()
            .map(|pat| {
                let mut q: Vec<u16> = pat.iter().map(|&s| p[s as usize]).collect();
                q.sort_unstable();
                q
            })
            .collect();
        image.sort();
        image == sorted
    };
    let identity: Vec<u16> = (0..n as u16).collect();
    let mut group = vec![identity];
    let gens: Vec<&Vec<u16>> = perms.iter().filter(|p| keeps(p)).collect();
    let mut i = 0;
    while i < group.len() && group.len() < cap {
        for g in &gens {
            let c: Vec<u16> = group[i].iter().map(|&s| g[s as usize]).collect();
            if !group.contains(&c) {
                group.push(c);
            }
        }
        i += 1;
    }
    group
}
