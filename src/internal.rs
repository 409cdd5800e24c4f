//! For the `retrograde` command (`cli/`), the C library (`capi/`), and the
//! workspace's tests, benches and fuzz targets: not part of the API, no
//! semver promise. Hidden from the documentation.
//!
//! The library's API is what `cargo doc` shows: the reader, the file
//! format's header, the [`Game`](crate::Game) trait and
//! [`testing`](crate::testing), the built-in games, and the entry points
//! of the solver and the search with their options and results. What the
//! command needs beyond that — the solve's output checks and resource
//! plans, the verification, analysis and comparison behind `verify`,
//! `analyze` and `compare`, the number formats of its messages — and what
//! the tests reach into (the search's representations and engines' insides,
//! the checkpoint's name, the temporary-file protocol), is re-exported
//! here, from where it lives, so that it is one door and never mistaken
//! for the API. An embedding program should not use it: any of it may
//! change or go in any release.

/// The numbers in messages, the library's and the command line's.
pub mod text {
    pub use crate::units::{human_bytes, thousands};
}

/// The file format's constants and writing.
pub mod format {
    pub use crate::format::crc::{Counting, CountingWriter, CrcReader};
    pub use crate::format::header::{data_crc, MAGIC, PAGE};
    #[cfg(feature = "solve")]
    pub use crate::format::write::{
        generator, remove_stale_temporaries, remove_temporary_files, stale_notice,
        write_table_file, write_tablebase, TempFile,
    };
}

/// The board symmetries a folded index and the search's keys use.
pub mod games {
    pub use crate::games::symmetry::BoardSymmetries;
}

/// The reader's mapping of a file, for the C library's one handle type.
pub mod raw {
    pub use crate::reader::storage::map_file;
}

/// The solver's insides the command plans and checks a solve with.
#[cfg(feature = "solve")]
pub mod solve {
    pub use crate::solve::checkpoint::checkpoint_path;
    pub use crate::solve::estimate::{estimate, memory_available, Estimate};
    pub use crate::solve::file::solve_locked;
    pub use crate::solve::mex;
    pub use crate::solve::output::{check_output, input_files, same_file, OutputLock};
    pub use crate::solve::stream::{
        cannot_stream, memory_needs, plan, MemoryNeeds, Plan, PROCESS_MEMORY,
    };
}

/// The search's engines and representations, for the tests and benches.
#[cfg(feature = "solve")]
pub mod search {
    /// The cube's 48 symmetries, and the maps of its coordinates' values
    /// that give Qubic's lines 192: to compare keying Qubic by either.
    pub use crate::games::symmetry::{cube_perms, cube_value_perms};
    pub use crate::search::couples::{Couples, Lands};
    pub use crate::search::dfpn::Dfpn;
    pub use crate::search::games::columns::{Columns, ColumnsPos};
    pub use crate::search::games::cram::{CramNimberLeaves, CramSearch};
    pub use crate::search::games::cram_couples::CramLands;
    pub use crate::search::games::cram_sets::CramSets;
    pub use crate::search::games::isolation::{IsolationSearch, IsolationSearchPos};
    pub use crate::search::games::occupy::{Occupy, OccupyPos, LAMBDA_FROM, THREAT_BUDGET};
    pub use crate::search::games::table::TableRules;
    pub use crate::search::leaves::{NimberLeaves, TableLeaves, ValueLeaves};
    pub use crate::search::proofdb::{verify_nimbers, verify_values};

    /// Sprouts' two engines (normal play by couples `L + *k`, misère by
    /// whole positions), which the oracle test compares.
    pub mod sprouts {
        pub use crate::search::games::sprouts::misere::Misere;
        pub use crate::search::games::sprouts::normal::Normal;
        pub use crate::search::games::sprouts::SproutsSearch;
    }
}

/// `retrograde analyze`'s figures.
#[cfg(feature = "solve")]
pub mod analyze {
    pub use crate::analyze::*;
}

/// `retrograde compare`.
#[cfg(feature = "solve")]
pub mod compare {
    pub use crate::compare::*;
}

/// `retrograde verify`: the re-derivation, the sample, the statistics, the
/// padding and the manifest of the shipped tables.
#[cfg(feature = "solve")]
pub mod verify {
    pub use crate::verify::*;
}
