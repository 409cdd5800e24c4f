//! Numbers as messages and reports write them: counts with thousands
//! separators, sizes in binary units.

/// `1234567` → `1,234,567`: counts in messages, the library's and the
/// command line's.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// A size in the largest binary unit that keeps it at least 1 (bytes, KiB,
/// MiB, GiB, TiB), so a 2 MiB disk does not read "0.00 GiB".
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut x = bytes as f64 / 1024.0;
    let mut unit = 0;
    while x >= 1024.0 && unit + 1 < UNITS.len() {
        x /= 1024.0;
        unit += 1;
    }
    format!("{x:.2} {}", UNITS[unit])
}
