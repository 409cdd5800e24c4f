//! `AnyGame::parse` on arbitrary UTF-8; a game that parses round-trips
//! through its canonical spec.
#![no_main]

#[allow(dead_code)]
mod checks {
    include!("../checks.rs");
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        checks::check_spec(s);
    }
});
