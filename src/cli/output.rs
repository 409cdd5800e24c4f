//! Formatting shared by several commands: numbers and sizes, one-line
//! position descriptions, the header's counts, and their JSON forms.

use retrograde::format::Header;
use retrograde::{Outcome, PositionInfo, TableKind, Value};
use serde_json::{json, Value as Json};
use std::path::Path;

/// `1234567` → `1,234,567`.
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

pub use retrograde::format::human_bytes;

/// `"nothing"` where a file has no answer for a position.
pub fn show(o: Option<Outcome>) -> String {
    o.map_or("nothing".to_string(), |o| o.to_string())
}

pub fn outcome_json(o: Outcome) -> (Json, Json) {
    (json!(o.value.name()), json!(o.remoteness))
}

pub fn describe(p: &PositionInfo) -> String {
    format!(
        "{}: {}, {}{}{}",
        p.position,
        p.to_move
            .map_or("to move".to_string(), |m| format!("player {m} to move")),
        p.outcome,
        p.nimber.map_or(String::new(), |k| format!(" (nimber {k})")),
        if p.primitive { " (game over)" } else { "" }
    )
}

pub fn position_json(p: &PositionInfo) -> Json {
    let (value, remoteness) = outcome_json(p.outcome);
    json!({
        "position": p.position,
        "index": p.index,
        "to_move": p.to_move,
        "value": value,
        "remoteness": remoteness,
        "nimber": p.nimber,
        "primitive": p.primitive,
    })
}

pub fn print_counts(h: &Header) {
    let s = &h.summary;
    for v in Value::ALL {
        let c = s.counts[v.ordinal()];
        let max = match v {
            Value::Draw => String::new(),
            _ if c == 0 || h.kind() == TableKind::Nimber => String::new(),
            _ => format!(" (largest remoteness {})", s.max_remoteness[v.ordinal()]),
        };
        println!("  {:<13} {:>16}{}", v.name(), thousands(c), max);
    }
    if s.non_positions > 0 {
        println!(
            "  {:<13} {:>16}",
            "non-positions",
            thousands(s.non_positions)
        );
    }
}

pub fn header_json(h: &Header, path: &Path) -> Json {
    let s = &h.summary;
    json!({
        "file": path.display().to_string(),
        "game": h.spec,
        "format_version": h.version,
        "index_scheme": h.index_scheme,
        "folded": h.flags & retrograde::format::FLAG_FOLDED != 0,
        "cell_width": h.cell_width,
        "table": h.kind().name(),
        "entries": h.entries,
        "data_offset": h.data_offset,
        "file_size": h.file_len(),
        "data_crc32": format!("{:08x}", h.data_crc),
        "generator": h.generator,
        "counts": {
            "win": s.counts[0], "lose": s.counts[1], "tie": s.counts[2], "draw": s.counts[3],
            "non_positions": s.non_positions,
        },
        "max_remoteness": {
            "win": s.max_remoteness[0], "lose": s.max_remoteness[1], "tie": s.max_remoteness[2],
        },
        "max_nimber": (h.kind() == TableKind::Nimber).then_some(s.max_nimber),
    })
}

#[cfg(test)]
mod tests {
    use super::human_bytes;

    #[test]
    fn sizes_are_printed_in_a_unit_that_shows_them() {
        assert_eq!(human_bytes(0), "0 bytes");
        assert_eq!(human_bytes(1023), "1023 bytes");
        assert_eq!(human_bytes(10_142), "9.90 KiB");
        assert_eq!(human_bytes(2 << 20), "2.00 MiB");
        assert_eq!(human_bytes(5_033_164_800 + 4096), "4.69 GiB");
        assert_eq!(human_bytes(3 << 40), "3.00 TiB");
    }
}
