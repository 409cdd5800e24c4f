//! STUB: being written.

use super::AnySearch;
use crate::search::SearchGame;
use crate::value::Value;

/// STUB.
pub struct IsolationSearch;

/// The search game of `spec` if its name is this module's, else `None`.
pub fn parse(_spec: &str) -> Option<Result<AnySearch, String>> {
    None
}

impl SearchGame for IsolationSearch {
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
