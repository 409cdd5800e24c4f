//! Pattern games from a pattern file or an inline spec (the formats are in
//! the parent module's docs), and the [`Game`](crate::game::Game)
//! implementation every pattern game shares.

use super::*;

/// Implements [`crate::game::Game`] for a type holding a [`PatternBoard`]
/// in a field `board` by delegating to it (symmetry folding replaces the
/// field with the folded board). The type provides inherent `fn board(&self) ->
/// &PatternBoard`, `fn canonical_spec(&self) -> String` and `fn stem(&self)
/// -> String`; everything else is the board's.
macro_rules! impl_pattern_game {
    ($ty:ty) => {
        impl $crate::game::Game for $ty {
            type Position = $crate::games::pattern::PatternPosition;
            /// The square occupied.
            type Move = u8;

            fn spec(&self) -> String {
                self.canonical_spec()
            }

            fn file_stem(&self) -> String {
                if self.board.is_folded() {
                    format!("{}-folded", self.stem())
                } else {
                    self.stem()
                }
            }

            fn index_scheme(&self) -> u16 {
                self.board.index_scheme()
            }

            fn folded(&self) -> Result<Self, String> {
                let mut g = self.clone();
                g.board = self.board.folded()?;
                Ok(g)
            }

            fn unfolded(&self) -> Self {
                let mut g = self.clone();
                g.board = self.board.unfolded();
                g
            }

            fn is_folded(&self) -> bool {
                self.board.is_folded()
            }

            fn size(&self) -> u64 {
                self.board().size()
            }

            #[inline]
            fn encode(&self, p: &Self::Position) -> u64 {
                self.board().encode(p)
            }

            #[inline]
            fn decode(&self, index: u64) -> Option<Self::Position> {
                self.board().decode(index)
            }

            fn start(&self) -> Self::Position {
                self.board().start()
            }

            #[inline]
            fn primitive(&self, p: &Self::Position) -> Option<$crate::value::Value> {
                self.board().primitive(p)
            }

            fn moves(&self, p: &Self::Position) -> Vec<(u8, Self::Position)> {
                self.board().moves(p)
            }

            #[inline(always)]
            fn for_each_child_index(&self, p: &Self::Position, f: impl FnMut(u64)) {
                self.board().for_each_child_index(p, f)
            }

            #[inline]
            fn move_count(&self, p: &Self::Position) -> u64 {
                self.board().move_count(p)
            }

            fn tier_count(&self) -> u32 {
                self.board().tier_count()
            }

            #[inline]
            fn tier(&self, p: &Self::Position) -> u32 {
                self.board().tier(p)
            }

            fn tier_units(&self, tier: u32) -> u64 {
                self.board().tier_units(tier)
            }

            #[inline]
            fn for_each_in_unit(&self, tier: u32, unit: u64, f: impl FnMut(u64, &Self::Position)) {
                self.board().for_each_in_unit(tier, unit, f)
            }

            fn max_remoteness(&self) -> u32 {
                self.board().max_remoteness()
            }

            fn player_to_move(&self, p: &Self::Position) -> Option<u8> {
                Some(p.mover())
            }

            fn parse_position(&self, s: &str) -> Result<Self::Position, String> {
                self.board().parse_position(s)
            }

            fn format_position(&self, p: &Self::Position) -> String {
                self.board().format_position(p)
            }

            fn format_move(&self, m: &u8) -> String {
                m.to_string()
            }
        }

        /// The board's rows of numbered squares; a move is clicked as
        /// its square.
        impl $crate::games::board::View for $ty {
            fn board_view(&self, p: &Self::Position) -> $crate::games::board::BoardView {
                self.board()
                    .view(p)
                    .with_moves(self, p, |&m| vec![usize::from(m)])
            }
        }
    };
}
pub(crate) use impl_pattern_game;

/// A pattern game described by a pattern file or an inline spec (see the
/// module docs for both formats).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternGame {
    name: String,
    board: PatternBoard,
}

impl_pattern_game!(PatternGame);

/// Checks a game name: 1 to 32 letters, digits, `-` or `_`.
fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 32 {
        return Err(format!(
            "name {} must have 1 to 32 characters",
            crate::error::Error::quote(name)
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
    {
        return Err(format!(
            "name '{name}' contains '{c}': use letters, digits, '-' and '_'"
        ));
    }
    Ok(())
}

/// The canonical spec of the game `name` on `layout`:
/// `pattern:NAME:squares=N[:rows=..]:lines=..`.
fn spec(name: &str, layout: &Layout) -> String {
    format!("pattern:{name}:{}", layout.spec_fields())
}

/// Parses a square number.
fn parse_square(t: &str) -> Result<u32, String> {
    crate::games::parse_num::<u32>(t)
        .ok_or_else(|| format!("{} is not a square number", crate::error::Error::quote(t)))
}

/// A pattern game as its spec describes it, read from a pattern file or the
/// inline form, before a size limit: the tables' ([`MAX_SQUARES`]) or the
/// search's ([`crate::games::placement::MAX_SQUARES`]) is applied by
/// [`Description::layout`].
pub(crate) struct Description {
    name: String,
    squares: u64,
    rows: Vec<u32>,
    patterns: Vec<Vec<u32>>,
    /// Where each pattern was given, for its errors: `FILE line N` or
    /// `lines: pattern I ('…')`.
    at: Vec<String>,
    /// Prefix of an error about the board's size: `FILE line N: ` where
    /// the file gives it, else empty.
    size_at: String,
    /// Prefix of an error about the whole board: `FILE: `, or empty inline.
    whole: String,
}

impl Description {
    /// Parses what follows `pattern:`: the inline canonical form
    /// `NAME:squares=N[:rows=..]:lines=..` when a field after the first is
    /// `squares=`, `rows=` or `lines=`, otherwise a pattern file's path.
    ///
    /// The path is taken as it is (spaces included); the inline form is
    /// canonical only, so it refuses spaces.
    pub(crate) fn parse(params: &str) -> Result<Description, String> {
        if params.is_empty() {
            return Err(
                "expected pattern:PATH (a pattern file) or pattern:NAME:squares=N:lines=A.B.C,..."
                    .into(),
            );
        }
        let fields: Vec<&str> = params.split(':').collect();
        let inline = super::is_inline(params);
        if inline && params.contains(char::is_whitespace) {
            let fixed: String = params.chars().filter(|c| !c.is_whitespace()).collect();
            Err(format!(
                "an inline pattern spec has no spaces: did you mean {}?",
                crate::error::Error::quote(&format!("pattern:{fixed}"))
            ))
        } else if inline {
            Self::inline(fields[0], &fields[1..])
        } else {
            Self::file(params)
        }
    }

    /// Parses the inline form's fields after the name.
    fn inline(name: &str, fields: &[&str]) -> Result<Description, String> {
        check_name(name)?;
        let (mut squares, mut rows, mut lines) = (None, None, None);
        for f in fields {
            let (k, v) = f.split_once('=').unwrap_or((f, ""));
            let slot = match k {
                "squares" => &mut squares,
                "rows" => &mut rows,
                _ => &mut lines,
            };
            if slot.is_some() {
                return Err(format!("'{k}' is given twice"));
            }
            *slot = Some(v);
        }
        let rows: Vec<u32> = match rows {
            None => Vec::new(),
            Some(r) => r
                .split('.')
                .map(|t| {
                    crate::games::parse_num::<u32>(t).ok_or_else(|| {
                        format!(
                            "rows: {} is not a number of squares",
                            crate::error::Error::quote(t)
                        )
                    })
                })
                .collect::<Result<_, _>>()?,
        };
        let squares = match squares {
            Some(s) => crate::games::parse_num::<u64>(s).ok_or_else(|| {
                format!("squares: {} is not a number", crate::error::Error::quote(s))
            })?,
            None if !rows.is_empty() => rows.iter().map(|&r| u64::from(r)).sum(),
            None => return Err("missing squares=N".into()),
        };
        let lines = lines.ok_or("missing lines=A.B.C,D.E.F,...")?;
        let (mut patterns, mut at) = (Vec::new(), Vec::new());
        for (i, l) in lines.split(',').enumerate() {
            let here = format!(
                "lines: pattern {} ({})",
                i + 1,
                crate::error::Error::quote(l)
            );
            let squares = l
                .split('.')
                .map(parse_square)
                .collect::<Result<Vec<u32>, String>>()
                .map_err(|e| format!("{here}: {e}"))?;
            patterns.push(squares);
            at.push(here);
        }
        Ok(Description {
            name: name.to_string(),
            squares,
            rows,
            patterns,
            at,
            size_at: String::new(),
            whole: String::new(),
        })
    }

    /// Reads a pattern file (at most [`MAX_FILE_BYTES`]).
    ///
    /// Only a regular file is opened: the file's metadata is checked first,
    /// because opening a FIFO for reading waits for a writer (forever, in
    /// `solve pattern:p.txt --dry-run`), and a device such as `/dev/zero`
    /// never ends. A file larger than the cap is refused unread.
    pub(crate) fn file(path: &str) -> Result<Description, String> {
        use std::io::Read;
        let shown = crate::error::Error::quote(path);
        let cannot = |e: std::io::Error| format!("cannot read pattern file {shown}: {e}");
        let meta = std::fs::metadata(path).map_err(cannot)?;
        if !meta.is_file() {
            return Err(format!(
                "pattern file {shown} is {}, not a regular file",
                crate::error::file_kind(&meta.file_type())
            ));
        }
        if meta.len() > MAX_FILE_BYTES {
            return Err(format!(
                "pattern file {shown} has {} bytes; a pattern file is at most {MAX_FILE_BYTES}",
                meta.len()
            ));
        }
        let file = std::fs::File::open(path).map_err(cannot)?;
        let mut bytes = Vec::new();
        file.take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(cannot)?;
        // The file may have grown since its metadata was read.
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(format!(
                "pattern file {shown} is larger than {MAX_FILE_BYTES} bytes"
            ));
        }
        let text = String::from_utf8(bytes)
            .map_err(|_| format!("pattern file {shown} is not UTF-8 text"))?;
        Self::text(&text, path)
    }

    /// Parses the text of a pattern file; `source` names it in errors,
    /// which read `SOURCE line N: ...`.
    pub(crate) fn text(text: &str, source: &str) -> Result<Description, String> {
        let mut name: Option<(usize, String)> = None;
        let mut squares: Option<(usize, u64)> = None;
        let mut rows: Option<(usize, Vec<u32>)> = None;
        let mut patterns: Vec<(usize, Vec<u32>)> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let at = i + 1;
            let err = |m: String| format!("{source} line {at}: {m}");
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let tokens: Vec<&str> = line
                .split(|c: char| c.is_whitespace() || c == ',')
                .filter(|t| !t.is_empty())
                .collect();
            let Some((&key, args)) = tokens.split_first() else {
                continue;
            };
            let twice = |prev: Option<usize>| match prev {
                Some(l) => Err(err(format!("'{key}' is given twice (also line {l})"))),
                None => Ok(()),
            };
            match key {
                "name" => {
                    twice(name.as_ref().map(|n| n.0))?;
                    let [v] = args else {
                        return Err(err("expected 'name NAME'".into()));
                    };
                    check_name(v).map_err(err)?;
                    name = Some((at, v.to_string()));
                }
                "squares" => {
                    twice(squares.map(|s| s.0))?;
                    let [v] = args else {
                        return Err(err("expected 'squares N'".into()));
                    };
                    let n = crate::games::parse_num::<u64>(v).ok_or_else(|| {
                        err(format!(
                            "squares: {} is not a number",
                            crate::error::Error::quote(v)
                        ))
                    })?;
                    squares = Some((at, n));
                }
                "rows" => {
                    twice(rows.as_ref().map(|r| r.0))?;
                    if args.is_empty() {
                        return Err(err("expected 'rows N N ...' (squares per row)".into()));
                    }
                    let r = args
                        .iter()
                        .map(|t| {
                            crate::games::parse_num::<u32>(t)
                                .filter(|&v| v >= 1)
                                .ok_or_else(|| {
                                    err(format!(
                                        "row length {} is not a number of squares (1 or more)",
                                        crate::error::Error::quote(t)
                                    ))
                                })
                        })
                        .collect::<Result<Vec<u32>, String>>()?;
                    rows = Some((at, r));
                }
                k if k.starts_with(|c: char| c.is_ascii_digit()) => {
                    let sq = tokens
                        .iter()
                        .map(|t| parse_square(t))
                        .collect::<Result<Vec<u32>, String>>()
                        .map_err(err)?;
                    patterns.push((at, sq));
                }
                other => {
                    return Err(err(format!(
                        "unknown keyword {} (expected name, squares, rows, or a pattern: square numbers)",
                        crate::error::Error::quote(other)
                    )))
                }
            }
        }
        let top = |m: String| format!("{source}: {m}");
        let (_, name) = name.ok_or_else(|| top("no 'name' line".into()))?;
        let row_sum: Option<u64> = rows
            .as_ref()
            .map(|r| r.1.iter().map(|&v| u64::from(v)).sum());
        let (size_line, squares) = match (squares, row_sum) {
            (Some((at, n)), Some(sum)) if n != sum => {
                return Err(format!(
                    "{source} line {at}: squares {n} disagrees with the rows, which hold {sum}"
                ))
            }
            (Some((at, n)), _) => (at, n),
            (None, Some(sum)) => (rows.as_ref().map_or(0, |r| r.0), sum),
            (None, None) => return Err(top("neither 'squares' nor 'rows' is given".into())),
        };
        if patterns.is_empty() {
            return Err(top(
                "no patterns (a pattern line lists square numbers)".into()
            ));
        }
        if patterns.len() > 4 * MAX_PATTERNS {
            return Err(top(format!(
                "{} pattern lines; at most {} are read (and {MAX_PATTERNS} kept)",
                patterns.len(),
                4 * MAX_PATTERNS
            )));
        }
        Ok(Description {
            name,
            squares,
            rows: rows.map(|r| r.1).unwrap_or_default(),
            at: patterns
                .iter()
                .map(|(at, _)| format!("{source} line {at}"))
                .collect(),
            patterns: patterns.into_iter().map(|(_, p)| p).collect(),
            size_at: format!("{source} line {size_line}: "),
            whole: format!("{source}: "),
        })
    }

    /// The board, if it has 1 to `max` squares (at most
    /// [`crate::games::placement::MAX_SQUARES`]) and its patterns are on it.
    pub(crate) fn layout(&self, max: u32) -> Result<Layout, String> {
        if !(1..=u64::from(max)).contains(&self.squares) {
            return Err(format!(
                "{}{}",
                self.size_at,
                layout::too_many_squares(self.squares, max)
            ));
        }
        Layout::new(
            self.squares as u32,
            &self.rows,
            &self.patterns,
            max,
            &self.whole,
            |i| self.at[i].clone(),
        )
    }

    /// The game's name.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }
}

/// The search's face: up to 256 squares, the grid's and the cube's
/// symmetries as candidates.
#[cfg(feature = "solve")]
impl crate::games::placement::Placed for Description {
    fn words(&self) -> usize {
        crate::games::placement::words(self.squares)
    }

    fn placement(&self) -> Result<crate::games::placement::Placement, String> {
        let layout = self.layout(crate::games::placement::MAX_SQUARES)?;
        Ok(crate::games::placement::Placement {
            spec: spec(&self.name, &layout),
            squares: layout.squares(),
            patterns: layout.patterns().to_vec(),
            floor: None,
            symmetries: layout.symmetries(),
            misere: false,
            notation: Box::new(layout),
        })
    }
}

impl PatternGame {
    /// A pattern game named `name` on `board`.
    pub fn new(name: &str, board: PatternBoard) -> crate::Result<PatternGame> {
        PatternGame::build(name, board).map_err(crate::games::bad_parameters("pattern"))
    }

    fn build(name: &str, board: PatternBoard) -> Result<PatternGame, String> {
        check_name(name)?;
        let g = PatternGame {
            name: name.to_string(),
            board,
        };
        let len = g.canonical_spec().len();
        if len > MAX_SPEC_LEN {
            return Err(format!(
                "the patterns take {len} bytes as a spec; at most {MAX_SPEC_LEN} fit a tablebase header"
            ));
        }
        Ok(g)
    }

    /// Parses what follows `pattern:`: the inline canonical form
    /// `NAME:squares=N[:rows=..]:lines=..` when a field after the first is
    /// `squares=`, `rows=` or `lines=`, otherwise a pattern file's path.
    ///
    /// The path is taken as it is (spaces included); the inline form is
    /// canonical only, so it refuses spaces.
    pub fn from_params(params: &str) -> Result<PatternGame, String> {
        Self::from_description(&Self::describe(params)?)
    }

    /// What `pattern:PARAMS` describes, before the tables' size limit.
    pub(crate) fn describe(params: &str) -> Result<Description, String> {
        Description::parse(params)
    }

    /// The table game of a description: at most [`MAX_SQUARES`] squares,
    /// a canonical spec that fits a tablebase header.
    pub(crate) fn from_description(d: &Description) -> Result<PatternGame, String> {
        let board = PatternBoard::from_layout(d.layout(MAX_SQUARES)?);
        PatternGame::build(d.name(), board).map_err(|e| format!("{}{e}", d.whole))
    }

    /// Reads a pattern file (at most [`MAX_FILE_BYTES`]): see
    /// [`PatternGame::from_params`].
    pub fn from_file(path: &str) -> Result<PatternGame, String> {
        Self::from_description(&Description::file(path)?)
    }

    /// Parses the text of a pattern file; `source` names it in errors,
    /// which read `SOURCE line N: ...`.
    pub fn from_text(text: &str, source: &str) -> Result<PatternGame, String> {
        Self::from_description(&Description::text(text, source)?)
    }

    /// The game's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The board: squares, patterns, layout.
    pub fn board(&self) -> &PatternBoard {
        &self.board
    }

    /// `pattern:NAME:squares=N[:rows=..]:lines=..`.
    fn canonical_spec(&self) -> String {
        spec(&self.name, self.board.layout())
    }

    /// `pattern-NAME-HASH`: the name alone does not tell two rule sets
    /// apart (two files may both say `name ttt`), and default output names
    /// must not let one overwrite the other's table; HASH is the CRC-32 of
    /// the canonical spec, 8 hex digits.
    fn stem(&self) -> String {
        format!(
            "pattern-{}-{:08x}",
            self.name,
            crc32fast::hash(self.canonical_spec().as_bytes())
        )
    }
}
