//! The search (`retrograde search`, `retrograde::search`) against the
//! tables and the plain negamax reference.

mod cli;
#[path = "../common/mod.rs"]
mod common;
mod cram;
mod engine;
mod isolation;
mod occupy;
