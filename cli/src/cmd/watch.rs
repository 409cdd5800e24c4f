//! `search … --watch`: the computing branch of the running search, full
//! screen (ratatui on crossterm), and its steering by keys (Glop's
//! "computing branch" and "zapping"; the library's `search::watch`). The
//! search runs on its own thread; this one draws the branch the engine
//! publishes and sends the user's requests. The drawing ([`draw`]) and
//! the keys ([`key`]) are plain functions of the branch and the view's
//! state, tested without a terminal.

use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table};
use ratatui::Frame;
use retrograde::search::watch::{Branch, Choice, Colour, Steer, Watch};
use std::time::Duration;

/// What the view keeps between two drawings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct View {
    /// The level selected (its depth).
    pub selected: usize,
    /// Digits typed, a child's number to ask for on Enter.
    pub typed: String,
    /// The last thing said at the bottom.
    pub said: String,
}

/// What a key asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    Nothing,
    Steer(Steer),
    Quit,
}

/// The RGB of Glop's colours (orange has no ANSI colour of its own).
fn colour(c: Colour) -> Color {
    match c {
        Colour::Green => Color::Rgb(0x3c, 0xb3, 0x71),
        Colour::Yellow => Color::Rgb(0xe6, 0xc2, 0x29),
        Colour::Orange => Color::Rgb(0xf0, 0x8c, 0x1e),
        Colour::Red => Color::Rgb(0xd6, 0x3b, 0x3b),
    }
}

/// Handles one key: up/down select a level; left/right ask it for the
/// previous/next child (by number, wrapping); digits and Enter for the
/// child of that number (1 the first); `n` the next unknown child; `r`
/// back to the engine's choice; `q` (or Ctrl-C) stops the search.
pub fn key(view: &mut View, branch: &Branch, k: KeyEvent) -> Action {
    if k.kind == KeyEventKind::Release {
        return Action::Nothing;
    }
    let last = branch.levels.len().saturating_sub(1);
    view.selected = view.selected.min(last);
    let level = branch.levels.get(view.selected);
    let ask = |view: &mut View, choice: Choice| match level {
        Some(l) => {
            view.said = match choice {
                Choice::Child(c) => format!("level {}: child {} next", l.depth, c + 1),
                Choice::Next => format!("level {}: the next unknown child", l.depth),
                Choice::Release => format!("level {}: the engine's choice", l.depth),
            };
            Action::Steer(Steer {
                depth: l.depth,
                id: l.id,
                choice,
            })
        }
        None => Action::Nothing,
    };
    let children = level.map_or(0, |l| l.children.max(1));
    let current = level.and_then(|l| l.current).unwrap_or(0);
    match k.code {
        KeyCode::Char('q') | KeyCode::Esc if view.typed.is_empty() => Action::Quit,
        KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => Action::Quit,
        KeyCode::Esc => {
            view.typed.clear();
            Action::Nothing
        }
        KeyCode::Up => {
            view.selected = view.selected.saturating_sub(1);
            Action::Nothing
        }
        KeyCode::Down => {
            view.selected = (view.selected + 1).min(last);
            Action::Nothing
        }
        KeyCode::Home => {
            view.selected = 0;
            Action::Nothing
        }
        KeyCode::End => {
            view.selected = last;
            Action::Nothing
        }
        KeyCode::Right => ask(view, Choice::Child((current + 1) % children)),
        KeyCode::Left => ask(view, Choice::Child((current + children - 1) % children)),
        KeyCode::Char('n') => ask(view, Choice::Next),
        KeyCode::Char('r') => ask(view, Choice::Release),
        KeyCode::Char(d) if d.is_ascii_digit() => {
            if view.typed.len() < 9 {
                view.typed.push(d);
            }
            Action::Nothing
        }
        KeyCode::Backspace => {
            view.typed.pop();
            Action::Nothing
        }
        KeyCode::Enter => {
            let n: usize = view.typed.parse().unwrap_or(0);
            view.typed.clear();
            match n {
                n if n >= 1 && n <= children => ask(view, Choice::Child(n - 1)),
                _ => {
                    view.said = format!("no child {n}: 1 to {children}");
                    Action::Nothing
                }
            }
        }
        _ => Action::Nothing,
    }
}

/// Draws the branch: a title with the search and its counters, the levels
/// top-down (depth, unknown/total children coloured as Glop, the child
/// computed, the position), and the keys.
pub fn draw(f: &mut Frame, branch: &Branch, view: &View, title: &str) {
    let [head, body, foot] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(2),
    ])
    .areas(f.area());
    let state = match (branch.finished, branch.published) {
        (true, _) => "finished".to_string(),
        (false, 0) => "starting".to_string(),
        _ => format!("{} nodes", branch.nodes),
    };
    f.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(title, Style::new().add_modifier(Modifier::BOLD)),
            Span::raw(format!("  computing branch, {state}")),
        ])),
        head,
    );
    let rows = branch.levels.iter().map(|l| {
        let counts = Cell::from(format!("{}/{}", l.unknown, l.children));
        let counts = match Colour::of(l.unknown) {
            Some(c) => counts.style(Style::new().fg(Color::Black).bg(colour(c))),
            None => counts,
        };
        let child = match l.current {
            Some(c) if l.steered => format!("{}*", c + 1),
            Some(c) => format!("{}", c + 1),
            None => "-".into(),
        };
        let row = Row::new(vec![
            Cell::from(format!("{}", l.depth)),
            counts,
            Cell::from(child),
            Cell::from(l.position.clone()),
        ]);
        match l.depth == view.selected {
            true => row.style(Style::new().add_modifier(Modifier::REVERSED)),
            false => row,
        }
    });
    // Keep the selected level in sight: the rows from a start that shows it.
    let height = body.height.saturating_sub(3) as usize;
    let skip = view.selected.saturating_sub(height.saturating_sub(1));
    let table = Table::new(
        rows.skip(skip),
        [
            Constraint::Length(5),
            Constraint::Length(9),
            Constraint::Length(7),
            Constraint::Min(10),
        ],
    )
    .header(
        Row::new(vec!["depth", "unknown", "child", "position"])
            .style(Style::new().add_modifier(Modifier::UNDERLINED)),
    )
    .block(Block::default().borders(Borders::TOP | Borders::BOTTOM));
    f.render_widget(table, body);
    let typed = match view.typed.is_empty() {
        true => String::new(),
        false => format!("  child {}⏎", view.typed),
    };
    f.render_widget(
        Paragraph::new(vec![
            Line::from(
                "↑↓ level  ←→ child  digits+Enter child N  n next unknown  r engine's choice  q stop",
            ),
            Line::from(format!("{}{typed}", view.said)),
        ]),
        foot,
    );
}

/// Runs the view on the terminal until the search ends (`done` says so)
/// or the user stops it (`stop` is then called); the terminal is given
/// back as it was in either case.
pub fn run(
    watch: &Watch,
    title: &str,
    done: &dyn Fn() -> bool,
    stop: &dyn Fn(),
) -> std::io::Result<()> {
    let mut terminal = ratatui::try_init()?;
    let mut view = View::default();
    let result = (|| -> std::io::Result<()> {
        loop {
            let branch = watch.branch();
            terminal.draw(|f| draw(f, &branch, &view, title))?;
            if done() {
                return Ok(());
            }
            if event::poll(Duration::from_millis(100))? {
                if let Event::Key(k) = event::read()? {
                    match key(&mut view, &branch, k) {
                        Action::Quit => {
                            stop();
                            view.said = "stopping…".into();
                        }
                        Action::Steer(s) => watch.steer(s),
                        Action::Nothing => {}
                    }
                }
            }
        }
    })();
    ratatui::restore();
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;
    use retrograde::search::watch::Level;

    fn branch() -> Branch {
        let level = |depth, position: &str, children, unknown, current, steered| Level {
            depth,
            position: position.into(),
            id: 100 + depth as u64,
            children,
            unknown,
            current: Some(current),
            steered,
        };
        Branch {
            levels: vec![
                level(0, "0*7", 20, 12, 3, false),
                level(1, "0*5.AB|0*2.AB", 40, 7, 0, true),
                level(2, "0*4.A|0*4.A+0*3", 9, 2, 1, false),
                level(3, "0*2.a|0*2.a", 3, 1, 2, false),
            ],
            nodes: 4096,
            published: 3,
            finished: false,
        }
    }

    fn press(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn the_view_lists_the_levels_coloured_as_glop() {
        let mut t = Terminal::new(TestBackend::new(60, 10)).unwrap();
        let view = View {
            selected: 1,
            ..View::default()
        };
        t.draw(|f| draw(f, &branch(), &view, "sprouts:7")).unwrap();
        let buf = t.backend().buffer().clone();
        let line = |y: u16| -> String {
            (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect()
        };
        assert!(line(0).starts_with("sprouts:7  computing branch, 4096 nodes"));
        // Columns of 5, 9 and 7 cells, one apart.
        assert!(
            line(2).starts_with("depth unknown   child   position"),
            "{}",
            line(2)
        );
        assert!(
            line(3).starts_with("0     12/20     4       0*7"),
            "{}",
            line(3)
        );
        assert!(
            line(4).starts_with("1     7/40      1*      0*5.AB|0*2.AB"),
            "{}",
            line(4)
        );
        assert!(
            line(6).starts_with("3     1/3       3       0*2.a|0*2.a"),
            "{}",
            line(6)
        );
        // The counts' cell: no colour past 10 left, green 7, orange 2, red 1.
        assert_eq!(buf[(6, 3)].bg, Color::Reset);
        assert_eq!(buf[(6, 4)].bg, colour(Colour::Green));
        assert_eq!(buf[(6, 5)].bg, colour(Colour::Orange));
        assert_eq!(buf[(6, 6)].bg, colour(Colour::Red));
        // The selected level is shown reversed.
        assert!(buf[(0, 4)].modifier.contains(Modifier::REVERSED));
        assert!(!buf[(0, 3)].modifier.contains(Modifier::REVERSED));
        assert!(line(8).starts_with("↑↓ level"));
    }

    #[test]
    fn keys_select_levels_and_steer_them() {
        let b = branch();
        let mut v = View::default();
        assert_eq!(key(&mut v, &b, press(KeyCode::Up)), Action::Nothing);
        assert_eq!(v.selected, 0);
        for _ in 0..9 {
            key(&mut v, &b, press(KeyCode::Down));
        }
        assert_eq!(v.selected, 3);
        key(&mut v, &b, press(KeyCode::Up));
        let steer = |depth, choice| {
            Action::Steer(Steer {
                depth,
                id: 100 + depth as u64,
                choice,
            })
        };
        // Level 2 computes child 2 (index 1) of 9.
        assert_eq!(
            key(&mut v, &b, press(KeyCode::Right)),
            steer(2, Choice::Child(2))
        );
        assert_eq!(
            key(&mut v, &b, press(KeyCode::Left)),
            steer(2, Choice::Child(0))
        );
        assert_eq!(
            key(&mut v, &b, press(KeyCode::Char('n'))),
            steer(2, Choice::Next)
        );
        assert_eq!(
            key(&mut v, &b, press(KeyCode::Char('r'))),
            steer(2, Choice::Release)
        );
        key(&mut v, &b, press(KeyCode::Home));
        // Level 0: child 4 is current; left wraps from the first to the last.
        assert_eq!(key(&mut v, &b, press(KeyCode::Char('1'))), Action::Nothing);
        assert_eq!(key(&mut v, &b, press(KeyCode::Char('5'))), Action::Nothing);
        assert_eq!(v.typed, "15");
        assert_eq!(
            key(&mut v, &b, press(KeyCode::Enter)),
            steer(0, Choice::Child(14))
        );
        key(&mut v, &b, press(KeyCode::Char('9')));
        key(&mut v, &b, press(KeyCode::Char('9')));
        assert_eq!(key(&mut v, &b, press(KeyCode::Enter)), Action::Nothing);
        assert_eq!(v.said, "no child 99: 1 to 20");
        // Esc clears what is typed before it quits.
        key(&mut v, &b, press(KeyCode::Char('3')));
        assert_eq!(key(&mut v, &b, press(KeyCode::Esc)), Action::Nothing);
        assert_eq!(key(&mut v, &b, press(KeyCode::Char('q'))), Action::Quit);
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(key(&mut v, &b, ctrl_c), Action::Quit);
        // No branch yet: nothing to steer.
        let mut v = View::default();
        assert_eq!(
            key(&mut v, &Branch::default(), press(KeyCode::Char('n'))),
            Action::Nothing
        );
    }
}
