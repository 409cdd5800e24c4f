//! Files on disk and the library reading them: damaged and mislabelled
//! files, files changed while open, full disks, killed and resumed solves,
//! hostile paths and signals, many readers at once, the fuzz corpus and the
//! C and Python embeddings. Run one suite with `cargo test --release --test
//! files hostile::`.

#[path = "../common/mod.rs"]
mod common;

mod bad_files;
mod concurrency;
mod embed;
mod fuzz_corpus;
mod hostile;
mod kill_points;
mod messages;
mod reader_safety;
mod resume;
mod stream;
mod write_errors;
