//! `parse_position` on arbitrary UTF-8 for a small instance of every game;
//! a position that parses lies inside the index and round-trips through
//! `format_position`.
#![no_main]

#[allow(dead_code)]
mod checks {
    include!("../checks.rs");
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        checks::check_position(s);
    }
});
