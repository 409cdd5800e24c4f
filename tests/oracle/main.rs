//! The solver against independent oracles and published figures: every
//! game family entry by entry on small sizes, symmetry folding, custom
//! games, thread-count determinism and property tests. One binary, so the
//! suites link once; run one suite with `cargo test --release --test oracle
//! gravity::`.

#[path = "../common/mod.rs"]
mod common;

mod cram;
mod custom_game;
mod determinism;
mod dodgem;
mod figures;
mod folding;
mod gravity;
mod isolation;
mod pattern_games;
mod properties;
mod sprouts;
mod takeaway;
