//! The search (`retrograde search`, `retrograde::search`) against the
//! tables and the plain negamax reference.

mod alphabeta;
mod cli;
mod columns;
#[path = "../common/mod.rs"]
mod common;
mod cram;
mod engine;
mod groups;
mod isolation;
mod lambda;
mod limits;
mod moves;
mod occupy;
mod parallel;
mod proofdb;
mod run;
mod shrink;
mod sprouts;
mod threats;
mod watch;

/// Helpers the game modules share.
mod shared {
    use retrograde::games::AnyGame;
    use retrograde::internal::search::{verify_values, Dfpn, TableRules};
    use retrograde::search::engine::Options;
    use retrograde::search::games::AnySearch;
    use retrograde::search::proofdb::{self, CheckReport, Fact, Kind, Record};
    use retrograde::search::SearchGame;
    use retrograde::Result;
    use std::path::Path;

    /// xorshift64: seeded samples without a dependency.
    pub struct Rng(pub u64);

    impl Rng {
        pub fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        pub fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// A registered game through its table rules (the reference).
    pub fn table(spec: &str) -> TableRules<AnyGame> {
        match AnySearch::parse_table_rules(spec).unwrap() {
            AnySearch::Table(t) => t,
            _ => panic!("{spec} has no table rules"),
        }
    }

    /// Saves what `search` (a df-pn search of `g`) proved to `path` and
    /// returns how many positions it holds.
    pub fn save_proven<G: SearchGame>(g: &G, search: &Dfpn<'_, G>, path: &Path) -> u64 {
        let mut records: Vec<_> = search
            .proven()
            .map(|(key, b)| Record {
                key,
                fact: Fact::Value(b),
                pos: g.position_of_key(&key).unwrap(),
            })
            .collect();
        proofdb::save(g, path, Kind::Values, &mut records).unwrap();
        records.len() as u64
    }

    /// Re-proves the database `path` as `--check` does, reading it as a
    /// database of `game` (which may search with other knowledge than the
    /// game that saved it) with a fresh df-pn of `options`.
    pub fn check_as<G: SearchGame>(game: &G, path: &Path, options: Options) -> Result<CheckReport> {
        let (_, loaded) = proofdb::load(game, path)?;
        let db = proofdb::merge(game, vec![(path.to_path_buf(), loaded)])?;
        let mut fresh = Dfpn::new(game, options);
        verify_values(game, &db, &mut fresh, &|| false)
    }
}
