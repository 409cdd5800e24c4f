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
mod occupy;
mod parallel;
mod proofdb;
mod run;
mod sprouts;
mod threats;

/// Helpers the game modules share.
mod shared {
    use retrograde::games::AnyGame;
    use retrograde::internal::search::TableRules;
    use retrograde::search::games::AnySearch;

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
}
