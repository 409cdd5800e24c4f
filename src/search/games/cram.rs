//! STUB: being written.

use super::AnySearch;
use crate::search::SearchGame;
use crate::value::Value;

/// STUB.
pub struct CramSearch;

/// The search game of `spec` if its name is this module's, else `None`.
pub fn parse(_spec: &str) -> Option<Result<AnySearch, String>> {
    None
}

impl SearchGame for CramSearch {
    type Pos = u64;
    type Move = u64;
    type Key = u64;
    fn spec(&self) -> String {
        unimplemented!()
    }
    fn start(&self) -> u64 {
        unimplemented!()
    }
    fn parse_position(&self, _s: &str) -> Result<u64, String> {
        unimplemented!()
    }
    fn format_position(&self, _p: &u64) -> String {
        unimplemented!()
    }
    fn format_move(&self, _m: &u64) -> String {
        unimplemented!()
    }
    fn terminal(&self, _p: &u64) -> Option<Value> {
        unimplemented!()
    }
    fn moves(&self, _p: &u64) -> Vec<(u64, u64)> {
        unimplemented!()
    }
    fn key(&self, _p: &u64) -> u64 {
        unimplemented!()
    }
}

/// STUB.
pub struct CramNimberLeaves;

impl CramNimberLeaves {
    /// STUB.
    pub fn open(_paths: &[std::path::PathBuf]) -> Result<CramNimberLeaves, String> {
        Err("not yet".into())
    }
    /// STUB.
    pub fn nimber_of<G: SearchGame>(&self, _g: &G, _p: &G::Pos) -> Option<u32> {
        None
    }
}
