//! The pattern-file parser (`PatternGame::from_text`, no file is read) and
//! the inline `pattern:NAME:squares=..:lines=..` spec on arbitrary UTF-8.
#![no_main]

#[allow(dead_code)]
mod checks {
    include!("../checks.rs");
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        checks::check_pattern_file(s);
    }
});
