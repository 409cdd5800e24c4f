//! `analyze --svg`: the analysis as a picture, written by hand (a few
//! rectangles and labels need no plotting library). Drawn from the JSON of
//! `analyze --json`, as the explorer's "This table" panel draws it, so the
//! file, the page and the JSON show the same counts.
//!
//! Two panels: the remoteness histogram of the reachable positions, one bar
//! per value (win, lose, tie) at each remoteness (a nimber table: one bar
//! per nimber), and the reachable positions per tier in the order of play
//! (the start's tier first). Every bar carries its numbers as attributes
//! (`data-value`, `data-remoteness` or `data-nimber` or `data-tier`,
//! `data-count`), for a program reading the file, and a `<title>` for a
//! person hovering it.

use serde_json::Value as Json;
use std::fmt::Write;

/// The page's traffic-light colours (cli/src/serve/assets/style.css).
const COLOURS: [(&str, &str); 3] = [("win", "#2e9d4a"), ("lose", "#8b1a1a"), ("tie", "#e0b400")];
const NIMBER_COLOUR: &str = "#2563eb";
const TIER_COLOUR: &str = "#6b7280";

const WIDTH: f64 = 720.0;
const PANEL_H: f64 = 220.0;
const LEFT: f64 = 84.0;
const RIGHT: f64 = 16.0;

/// One bar: its attributes (name, value) and its count.
struct Bar {
    attrs: Vec<(&'static str, String)>,
    count: u64,
    colour: &'static str,
    title: String,
}

/// The SVG document of `analysis` (the object `analyze --json` prints).
pub fn analysis_svg(analysis: &Json) -> String {
    let game = analysis["game"].as_str().unwrap_or("");
    let counts = |v: &Json| -> Vec<u64> {
        v.as_array()
            .map(|a| a.iter().map(|c| c.as_u64().unwrap_or(0)).collect())
            .unwrap_or_default()
    };
    // The first panel: remoteness per value, or nimbers in a nimber table.
    let (first_title, axis, groups, legend) = match analysis.get("nimbers") {
        Some(n) if n.is_array() => {
            let groups: Vec<(String, Vec<Bar>)> = counts(n)
                .into_iter()
                .enumerate()
                .map(|(k, c)| {
                    let bar = Bar {
                        attrs: vec![("data-nimber", k.to_string())],
                        count: c,
                        colour: NIMBER_COLOUR,
                        title: format!("nimber *{k}: {c} positions"),
                    };
                    (format!("*{k}"), vec![bar])
                })
                .collect();
            (
                "Reachable positions by nimber",
                "nimber",
                groups,
                Vec::new(),
            )
        }
        _ => {
            let hist: Vec<Vec<u64>> = COLOURS
                .iter()
                .map(|(v, _)| counts(&analysis["remoteness"][*v]))
                .collect();
            // A value none of the positions has (ties in most games) takes no
            // room.
            let shown: Vec<usize> = (0..COLOURS.len())
                .filter(|&v| hist[v].iter().any(|&c| c > 0))
                .collect();
            let longest = hist.iter().map(Vec::len).max().unwrap_or(0);
            let groups = (0..longest)
                .map(|r| {
                    let bars = shown
                        .iter()
                        .map(|&v| {
                            let (name, colour) = COLOURS[v];
                            let c = hist[v].get(r).copied().unwrap_or(0);
                            Bar {
                                attrs: vec![
                                    ("data-value", name.to_string()),
                                    ("data-remoteness", r.to_string()),
                                ],
                                count: c,
                                colour,
                                title: format!("{name} in {r}: {c} positions"),
                            }
                        })
                        .collect();
                    (r.to_string(), bars)
                })
                .collect();
            (
                "Reachable positions by remoteness, per value for the player to move",
                "remoteness",
                groups,
                shown.iter().map(|&v| COLOURS[v]).collect(),
            )
        }
    };
    // The second panel: tiers in the order of play. The JSON lists them by
    // number, and the solver numbers them from the end of the game up.
    let mut tiers: Vec<(u64, u64)> = analysis["tiers"]
        .as_object()
        .map(|o| {
            o.iter()
                .filter_map(|(t, c)| Some((t.parse().ok()?, c.as_u64()?)))
                .collect()
        })
        .unwrap_or_default();
    tiers.sort_by_key(|&(t, _)| std::cmp::Reverse(t));
    let tier_groups: Vec<(String, Vec<Bar>)> = tiers
        .into_iter()
        .map(|(t, c)| {
            let bar = Bar {
                attrs: vec![("data-tier", t.to_string())],
                count: c,
                colour: TIER_COLOUR,
                title: format!("tier {t}: {c} positions"),
            };
            (t.to_string(), vec![bar])
        })
        .collect();

    let height = 40.0 + 2.0 * (PANEL_H + 30.0);
    let mut out = String::new();
    let _ = writeln!(
        out,
        r##"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="DejaVu Sans, sans-serif" font-size="11">
<title>{}: retrograde analyze</title>
<rect width="100%" height="100%" fill="#ffffff"/>
<text x="{LEFT}" y="22" font-size="15" font-weight="bold">{}</text>"##,
        escape(game),
        escape(game)
    );
    panel(&mut out, "remoteness", first_title, axis, &groups, 40.0);
    // The values' colours, in line with the axis's name, at the right.
    for (i, (name, colour)) in legend.iter().enumerate() {
        let x = WIDTH - RIGHT - 60.0 * (legend.len() - i) as f64;
        let y = 40.0 + PANEL_H + 4.0;
        let _ = writeln!(
            out,
            r#"<rect class="key" x="{x}" y="{}" width="10" height="10" fill="{colour}"/><text x="{}" y="{y}">{name}</text>"#,
            y - 9.0,
            x + 14.0
        );
    }
    panel(
        &mut out,
        "tiers",
        "Reachable positions per tier, in the order of play (the start's tier first)",
        "tier",
        &tier_groups,
        40.0 + PANEL_H + 30.0,
    );
    out.push_str("</svg>\n");
    out
}

/// One panel of grouped bars at `top`: a title, a count axis, and the bars
/// of each group side by side above the group's label.
fn panel(
    out: &mut String,
    id: &str,
    title: &str,
    axis: &str,
    groups: &[(String, Vec<Bar>)],
    top: f64,
) {
    let plot_top = top + 34.0;
    let plot_h = PANEL_H - 64.0;
    let base = plot_top + plot_h;
    let plot_w = WIDTH - LEFT - RIGHT;
    let max = groups
        .iter()
        .flat_map(|(_, bars)| bars.iter().map(|b| b.count))
        .max()
        .unwrap_or(0)
        .max(1);
    let _ = writeln!(out, r#"<g class="panel" id="{id}">"#);
    let _ = writeln!(
        out,
        r##"<text x="{LEFT}" y="{}" font-size="13" font-weight="bold">{}</text>"##,
        top + 18.0,
        escape(title)
    );
    // The count axis: zero and the largest bar.
    let _ = writeln!(
        out,
        r##"<line x1="{LEFT}" y1="{base}" x2="{}" y2="{base}" stroke="#9aa1ad"/>
<line x1="{LEFT}" y1="{plot_top}" x2="{LEFT}" y2="{base}" stroke="#9aa1ad"/>
<text x="{}" y="{}" text-anchor="end">{}</text>
<text x="{}" y="{}" text-anchor="end">0</text>"##,
        WIDTH - RIGHT,
        LEFT - 6.0,
        plot_top + 4.0,
        thousands(max),
        LEFT - 6.0,
        base + 4.0,
    );
    let _ = writeln!(
        out,
        r##"<text x="{}" y="{}" text-anchor="middle" fill="#6b7280">{axis}</text>"##,
        LEFT + plot_w / 2.0,
        base + 34.0
    );
    if groups.is_empty() {
        let _ = writeln!(out, "</g>");
        return;
    }
    let slot = plot_w / groups.len() as f64;
    // Labels under at most about 30 groups, so that they do not run together.
    let every = groups.len().div_ceil(30);
    for (i, (label, bars)) in groups.iter().enumerate() {
        let x0 = LEFT + i as f64 * slot;
        let inner = slot * 0.8;
        let w = inner / bars.len() as f64;
        for (j, b) in bars.iter().enumerate() {
            let h = plot_h * b.count as f64 / max as f64;
            let x = x0 + slot * 0.1 + j as f64 * w;
            let _ = write!(
                out,
                r#"<rect class="bar" x="{x:.2}" y="{:.2}" width="{w:.2}" height="{h:.2}" fill="{}""#,
                base - h,
                b.colour
            );
            for (k, v) in &b.attrs {
                let _ = write!(out, r#" {k}="{}""#, escape(v));
            }
            let _ = writeln!(
                out,
                r#" data-count="{}"><title>{}</title></rect>"#,
                b.count,
                escape(&b.title)
            );
        }
        if i % every == 0 {
            let _ = writeln!(
                out,
                r##"<text x="{:.2}" y="{}" text-anchor="middle" fill="#6b7280">{}</text>"##,
                x0 + slot / 2.0,
                base + 14.0,
                escape(label)
            );
        }
    }
    let _ = writeln!(out, "</g>");
}

fn thousands(n: u64) -> String {
    super::output::thousands(n)
}

/// Text made safe for XML character data and attribute values.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // XML 1.0 allows no other control characters, even escaped.
            c if (c as u32) < 0x20 && c != '\t' && c != '\n' && c != '\r' => out.push('?'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn escapes_a_pattern_files_name() {
        let svg = analysis_svg(
            &json!({"game": "pattern:a<b>&\"c\"", "remoteness": {"win": [1], "lose": [], "tie": []}, "tiers": {"0": 1}}),
        );
        assert!(svg.contains("pattern:a&lt;b&gt;&amp;&quot;c&quot;"));
        assert!(!svg.contains("a<b"));
    }
}
