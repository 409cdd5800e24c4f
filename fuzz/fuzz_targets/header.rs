//! `Header::decode` on arbitrary bytes and file lengths, and
//! `Tablebase::from_bytes` on arbitrary bytes as a whole file.
#![no_main]

#[allow(dead_code)]
mod checks {
    include!("../checks.rs");
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::check_header(data));
