//! The `retrograde` command end to end: every subcommand run as a separate
//! process, `play`, `compare`, hostile game specs and positions, and the
//! README's examples (`readme::`). Run one
//! suite with `cargo test --release --test cli play::`.

#[path = "../common/mod.rs"]
mod common;

mod chart;
mod commands;
mod compare;
mod hostile_specs;
mod play;
mod readme;
mod same_messages;
mod tables;
