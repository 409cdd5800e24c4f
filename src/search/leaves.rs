//! Tables as leaves of a search: wherever a searched position is a position
//! of a given table's game, its value (or nimber) is read from the table
//! instead of searched.
//!
//! The bridge is the game's notation: the search formats its position, the
//! table's game parses it and the reader probes it. Both sides print and
//! read the same notation (tests/search checks it), so any search game meets
//! any table of the same spec without a conversion per pair; the string
//! costs a microsecond, paid once per new node, far below the node's search.

use super::SearchGame;
use crate::reader::{FileStorage, Tablebase};
use crate::value::Value;
use crate::with_game;
use std::path::Path;

/// Where a search looks a position's value up before searching it.
pub trait ValueLeaves<G: SearchGame>: Sync {
    /// The value of `p` for the player to move, if a table holds it.
    fn value(&self, g: &G, p: &G::Pos) -> Option<Value>;
}

/// Where a nimber search looks an impartial component's nimber up.
pub trait NimberLeaves<G: SearchGame>: Sync {
    /// The nimber of the component `p`, if a table holds it.
    fn nimber(&self, g: &G, p: &G::Pos) -> Option<u32>;
}

/// Value and nimber tables opened as leaves.
pub struct TableLeaves {
    tables: Vec<(String, Tablebase<FileStorage>)>,
}

impl TableLeaves {
    /// Opens each file as a tablebase of a built-in game, checking its
    /// header and its data CRC (every byte is read once per search: a leaf
    /// answers for many positions, so a damaged table must not open). An
    /// error names the file.
    pub fn open(paths: &[impl AsRef<Path>]) -> crate::Result<TableLeaves> {
        let mut tables = Vec::new();
        for path in paths {
            let path = path.as_ref();
            let tb = Tablebase::open_verified(path).map_err(|e| crate::Error::File {
                path: path.to_path_buf(),
                error: Box::new(e),
            })?;
            let spec = with_game!(tb.game(), g => crate::Game::spec(&crate::Game::unfolded(g)));
            tables.push((spec, tb));
        }
        Ok(TableLeaves { tables })
    }

    /// The specs of the tables' games (unfolded), in the order given.
    pub fn specs(&self) -> Vec<String> {
        self.tables.iter().map(|(s, _)| s.clone()).collect()
    }

    /// The tables of the game `spec`: those a search of that game can use.
    pub fn for_spec(&self, spec: &str) -> Vec<&Tablebase<FileStorage>> {
        self.tables
            .iter()
            .filter(|(s, _)| s == spec)
            .map(|(_, t)| t)
            .collect()
    }

    fn lookup<T>(
        &self,
        spec: &str,
        pos: &str,
        read: impl Fn(&Tablebase<FileStorage>, &str) -> Option<T>,
    ) -> Option<T> {
        self.tables
            .iter()
            .filter(|(s, _)| s == spec)
            .find_map(|(_, tb)| read(tb, pos))
    }
}

/// Reads a position's outcome from a value table of its game.
fn read_value(tb: &Tablebase<FileStorage>, pos: &str) -> Option<Value> {
    with_game!(tb.game(), g => {
        let p = crate::Game::parse_position(g, pos).ok()?;
        tb.probe(g, &p).ok().map(|o| o.value)
    })
}

/// Reads a position's nimber from a nimber table of its game.
fn read_nimber(tb: &Tablebase<FileStorage>, pos: &str) -> Option<u32> {
    with_game!(tb.game(), g => {
        let p = crate::Game::parse_position(g, pos).ok()?;
        tb.nimber_index(crate::Game::encode(g, &p)).ok().flatten()
    })
}

impl<G: SearchGame> ValueLeaves<G> for TableLeaves {
    fn value(&self, g: &G, p: &G::Pos) -> Option<Value> {
        self.lookup(&g.spec(), &g.format_position(p), read_value)
    }
}

impl<G: SearchGame> NimberLeaves<G> for TableLeaves {
    fn nimber(&self, g: &G, p: &G::Pos) -> Option<u32> {
        self.lookup(&g.spec(), &g.format_position(p), read_nimber)
    }
}

/// The tables a search was given as leaves: tables of the searched game,
/// and region tables a game of sums reads its components from (Cram's
/// nimber tables, in any placement), asked first.
pub struct Leaves<G: SearchGame> {
    tables: TableLeaves,
    regions: Option<Box<dyn NimberLeaves<G>>>,
}

impl<G: SearchGame> Leaves<G> {
    /// Tables of the game, and region tables if any.
    pub fn new(tables: TableLeaves, regions: Option<Box<dyn NimberLeaves<G>>>) -> Leaves<G> {
        Leaves { tables, regions }
    }

    /// The values the tables give.
    pub fn values(&self) -> &dyn ValueLeaves<G> {
        &self.tables
    }

    /// The region tables, if any.
    pub fn regions(&self) -> Option<&dyn NimberLeaves<G>> {
        self.regions.as_deref()
    }
}

/// Nimbers from the region tables, else from a table of the same game.
impl<G: SearchGame> NimberLeaves<G> for Leaves<G> {
    fn nimber(&self, g: &G, p: &G::Pos) -> Option<u32> {
        self.regions
            .as_ref()
            .and_then(|r| r.nimber(g, p))
            .or_else(|| NimberLeaves::nimber(&self.tables, g, p))
    }
}

/// Sorts the tables a search of `g` was given: those of the same game
/// (unfolded), and those `region` takes; any other is refused, the error
/// saying what the search takes (`also`: the region tables, if it takes
/// some). Each table is opened once here for its header; the leaves open
/// them again verified.
pub fn sort_tables<G: SearchGame>(
    g: &G,
    paths: &[std::path::PathBuf],
    region: impl Fn(&Tablebase<FileStorage>) -> bool,
    also: &str,
) -> crate::Result<(Vec<std::path::PathBuf>, Vec<std::path::PathBuf>)> {
    let spec = g.spec();
    let (mut same, mut regions) = (Vec::new(), Vec::new());
    for path in paths {
        let tb = Tablebase::open(path).map_err(|e| crate::Error::File {
            path: path.clone(),
            error: Box::new(e),
        })?;
        let unfolded = with_game!(tb.game(), t => crate::Game::spec(&crate::Game::unfolded(t)));
        if unfolded == spec {
            same.push(path.clone());
        } else if region(&tb) {
            regions.push(path.clone());
        } else {
            return Err(crate::Error::LeafTable {
                path: path.clone(),
                reason: format!(
                    "a table of {}; this search of {spec} can use tables of the same game{also}",
                    crate::Error::quote(&tb.header().spec),
                ),
            });
        }
    }
    Ok((same, regions))
}

/// The leaves of a game that takes tables of its own game only.
pub fn open_tables<G: SearchGame>(
    g: &G,
    paths: &[std::path::PathBuf],
) -> crate::Result<Option<Leaves<G>>> {
    if paths.is_empty() {
        return Ok(None);
    }
    let (same, _) = sort_tables(g, paths, |_| false, "")?;
    Ok(Some(Leaves::new(TableLeaves::open(&same)?, None)))
}
