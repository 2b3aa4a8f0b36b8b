//! The keymap: one table of bindings that both handles keys and generates the
//! help overlay and the key hints, so the two cannot drift.
//!
//! Keys are looked up by context, most specific first: an open question,
//! a prompt or a field being typed in, the help overlay, keys that work
//! everywhere, then the current screen's keys and the global ones.

use std::sync::LazyLock;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::action::{Action, EditOp, Screen};

/// Where a binding applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ctx {
    /// Everywhere, even while typing.
    Always,
    /// When nothing is being typed.
    Global,
    /// While a line of text is being typed (fields and prompts).
    Typing,
    /// While a yes/no question is open.
    Confirm,
    /// On one screen, when nothing is being typed.
    Screen(Screen),
}

/// A key with its modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    /// The key.
    pub code: KeyCode,
    /// Ctrl, Alt, Shift.
    pub mods: KeyModifiers,
}

const NONE: KeyModifiers = KeyModifiers::NONE;
const CTRL: KeyModifiers = KeyModifiers::CONTROL;
const SHIFT: KeyModifiers = KeyModifiers::SHIFT;

const fn k(code: KeyCode) -> Key {
    Key { code, mods: NONE }
}
const fn c(ch: char) -> Key {
    Key {
        code: KeyCode::Char(ch),
        mods: NONE,
    }
}
const fn ctrl(ch: char) -> Key {
    Key {
        code: KeyCode::Char(ch),
        mods: CTRL,
    }
}

/// One binding: keys, what they do, and how help describes them.
#[derive(Debug, Clone)]
pub struct Binding {
    /// Where it applies.
    pub ctx: Ctx,
    /// The keys (any of them).
    pub keys: &'static [Key],
    /// What they do.
    pub action: Action,
    /// Help text.
    pub help: &'static str,
    /// Shown in the hint line.
    pub hint: bool,
}

const fn b(
    ctx: Ctx,
    keys: &'static [Key],
    action: Action,
    help: &'static str,
    hint: bool,
) -> Binding {
    Binding {
        ctx,
        keys,
        action,
        help,
        hint,
    }
}

use Ctx::{Always, Confirm, Global, Typing};
const CORPUS: Ctx = Ctx::Screen(Screen::Corpus);
const TRAIN: Ctx = Ctx::Screen(Screen::Train);
const RUNS: Ctx = Ctx::Screen(Screen::Runs);
const NEIGHBORS: Ctx = Ctx::Screen(Screen::Neighbors);
const EVALUATE: Ctx = Ctx::Screen(Screen::Evaluate);
const PROJECTION: Ctx = Ctx::Screen(Screen::Projection);
const CLASSIFY: Ctx = Ctx::Screen(Screen::Classify);
const HPARAMS: Ctx = Ctx::Screen(Screen::HParams);

const UP_DOWN: &[Key] = &[k(KeyCode::Up), k(KeyCode::Down)];
const ENTER: &[Key] = &[k(KeyCode::Enter)];
const LEFT_RIGHT: &[Key] = &[k(KeyCode::Left), k(KeyCode::Right)];

/// Every binding but the screen keys, which [`screen_bindings`] makes from
/// the screen list. Order matters within a context only for display.
static FIXED: &[Binding] = &[
    b(
        Confirm,
        &[c('y'), k(KeyCode::Enter)],
        Action::Yes,
        "yes",
        true,
    ),
    b(Confirm, &[c('n')], Action::No, "no", true),
    b(Confirm, &[k(KeyCode::Esc)], Action::Cancel, "cancel", true),
    b(
        Always,
        &[ctrl('c')],
        Action::Interrupt,
        "quit (asks if a run trains)",
        false,
    ),
    b(
        Always,
        &[ctrl('s')],
        Action::SaveSessionPrompt,
        "save the session",
        false,
    ),
    b(
        Always,
        &[ctrl('o')],
        Action::OpenSessionPrompt,
        "open a session file",
        false,
    ),
    b(Typing, ENTER, Action::Activate, "confirm", true),
    b(Typing, &[k(KeyCode::Esc)], Action::Cancel, "cancel", true),
    b(
        Typing,
        &[k(KeyCode::Tab)],
        Action::Complete,
        "complete",
        true,
    ),
    b(
        Typing,
        &[k(KeyCode::Backspace)],
        Action::Edit(EditOp::Backspace),
        "delete left",
        false,
    ),
    b(
        Typing,
        &[k(KeyCode::Delete)],
        Action::Edit(EditOp::Delete),
        "delete right",
        false,
    ),
    b(
        Typing,
        &[k(KeyCode::Left)],
        Action::Edit(EditOp::Left),
        "cursor left",
        false,
    ),
    b(
        Typing,
        &[k(KeyCode::Right)],
        Action::Edit(EditOp::Right),
        "cursor right",
        false,
    ),
    b(
        Typing,
        &[k(KeyCode::Home), ctrl('a')],
        Action::Edit(EditOp::Home),
        "line start",
        false,
    ),
    b(
        Typing,
        &[k(KeyCode::End), ctrl('e')],
        Action::Edit(EditOp::End),
        "line end",
        false,
    ),
    b(
        Typing,
        &[ctrl('w')],
        Action::Edit(EditOp::DeleteWord),
        "delete word",
        false,
    ),
    b(
        Typing,
        &[ctrl('u')],
        Action::Edit(EditOp::Clear),
        "clear line",
        false,
    ),
    b(Global, &[c('?')], Action::ToggleHelp, "help", true),
    b(Global, &[c('q')], Action::Quit, "quit", true),
    b(Global, &[c(']')], Action::NextScreen, "next screen", false),
    b(
        Global,
        &[c('[')],
        Action::PrevScreen,
        "previous screen",
        false,
    ),
    b(Global, &[k(KeyCode::Esc)], Action::Cancel, "close", false),
    // Corpus
    b(CORPUS, UP_DOWN, Action::Down, "select option", false),
    b(CORPUS, ENTER, Action::Activate, "edit / toggle", true),
    b(CORPUS, LEFT_RIGHT, Action::Right, "change choice", false),
    b(
        CORPUS,
        &[c('l')],
        Action::LoadCorpus,
        "load the corpus",
        true,
    ),
    b(
        CORPUS,
        &[c('r')],
        Action::ResetField,
        "reset option to default",
        false,
    ),
    // Train
    b(
        TRAIN,
        &[k(KeyCode::Tab)],
        Action::FocusNext,
        "methods / form",
        true,
    ),
    b(
        TRAIN,
        UP_DOWN,
        Action::Down,
        "select method or field",
        false,
    ),
    b(
        TRAIN,
        ENTER,
        Action::Activate,
        "choose method / edit field",
        true,
    ),
    b(TRAIN, LEFT_RIGHT, Action::Right, "change choice", false),
    b(
        TRAIN,
        &[c('s')],
        Action::StartTraining,
        "start training",
        true,
    ),
    b(
        TRAIN,
        &[c('p')],
        Action::TogglePause,
        "pause / resume",
        true,
    ),
    b(
        TRAIN,
        &[c('x')],
        Action::StopTraining,
        "stop (keeps vectors)",
        true,
    ),
    b(TRAIN, &[c('g')], Action::ToggleLogScale, "log scale", false),
    b(
        TRAIN,
        &[c('z')],
        Action::CycleSmoothing,
        "smoothing 0 / 0.6 / 0.9",
        false,
    ),
    b(
        TRAIN,
        &[c('a')],
        Action::CycleXAxis,
        "x axis: steps / epochs / seconds",
        false,
    ),
    b(
        TRAIN,
        &[c('o')],
        Action::ToggleOverlay,
        "overlay the listed runs' curves",
        false,
    ),
    b(
        TRAIN,
        &[c('r')],
        Action::ResetField,
        "reset field to default",
        false,
    ),
    b(
        TRAIN,
        &[c('w')],
        Action::DeclareSweep,
        "sweep… (declare one on 8 HParams)",
        false,
    ),
    // Runs
    b(RUNS, UP_DOWN, Action::Down, "select run", false),
    b(
        RUNS,
        &[c('a')],
        Action::PickSelected(super::action::Slot::A),
        "pick as A",
        true,
    ),
    b(
        RUNS,
        &[c('b')],
        Action::PickSelected(super::action::Slot::B),
        "pick as B (compare)",
        true,
    ),
    b(
        RUNS,
        &[c('e')],
        Action::ExportSelectedPrompt,
        "export vectors",
        true,
    ),
    b(RUNS, &[c('v')], Action::EvaluateSelected, "evaluate", true),
    b(
        RUNS,
        &[c('R')],
        Action::ReplaySelected,
        "replay the run",
        false,
    ),
    b(
        RUNS,
        &[c('D'), k(KeyCode::Delete)],
        Action::DeleteSelected,
        "delete run",
        false,
    ),
    b(
        RUNS,
        &[c('n')],
        Action::RenameSelectedPrompt,
        "name run",
        false,
    ),
    b(RUNS, &[c('t')], Action::TagSelectedPrompt, "tag run", false),
    b(
        RUNS,
        &[c('k')],
        Action::ToggleKeepSelected,
        "keep vectors in the session (on/off)",
        false,
    ),
    b(
        RUNS,
        &[c('f')],
        Action::FilterRunsPrompt,
        "filter runs (name, method, tags…)",
        false,
    ),
    b(
        RUNS,
        &[c('i')],
        Action::ImportVectorsPrompt,
        "open pre-trained vectors",
        false,
    ),
    b(
        RUNS,
        &[c('/')],
        Action::FindVocabPrompt,
        "find a word in its vocabulary (rank order)",
        false,
    ),
    b(
        RUNS,
        &[c(']')],
        Action::PageVocab(1),
        "next vocabulary page",
        false,
    ),
    b(
        RUNS,
        &[c('[')],
        Action::PageVocab(-1),
        "previous vocabulary page",
        false,
    ),
    b(RUNS, ENTER, Action::Activate, "show its charts", false),
    // Neighbours
    b(
        NEIGHBORS,
        &[k(KeyCode::Enter), c('/')],
        Action::Activate,
        "type a word",
        true,
    ),
    b(
        NEIGHBORS,
        &[k(KeyCode::Tab)],
        Action::FocusNext,
        "word / analogy",
        true,
    ),
    b(
        NEIGHBORS,
        &[c('+'), c('=')],
        Action::MoreNeighbors,
        "more neighbours",
        false,
    ),
    b(
        NEIGHBORS,
        &[c('-')],
        Action::FewerNeighbors,
        "fewer neighbours",
        false,
    ),
    b(
        NEIGHBORS,
        &[c('m')],
        Action::ToggleCombine,
        "3CosAdd / 3CosMul",
        false,
    ),
    b(
        NEIGHBORS,
        &[c('w')],
        Action::ToggleRanking,
        "cosine / Ŝ walk (dsnmf)",
        false,
    ),
    // Evaluate
    b(EVALUATE, UP_DOWN, Action::Down, "select run", false),
    b(
        EVALUATE,
        &[k(KeyCode::Enter), c('v')],
        Action::EvaluateSelected,
        "evaluate run",
        true,
    ),
    b(
        EVALUATE,
        &[c('V')],
        Action::EvaluateAll,
        "evaluate every run",
        true,
    ),
    b(
        EVALUATE,
        &[c('f')],
        Action::AddDatasetPrompt,
        "add a dataset file",
        true,
    ),
    b(
        EVALUATE,
        &[c('d')],
        Action::RemoveLastDataset,
        "remove the last added file",
        false,
    ),
    // HParams
    b(HPARAMS, UP_DOWN, Action::Down, "select run or field", false),
    b(
        HPARAMS,
        &[c('w')],
        Action::DeclareSweep,
        "sweep… (the Train method)",
        false,
    ),
    b(
        HPARAMS,
        &[c('s')],
        Action::StartSweep,
        "start the sweep of the form",
        false,
    ),
    b(
        HPARAMS,
        LEFT_RIGHT,
        Action::Right,
        "sort by the column left/right",
        true,
    ),
    b(
        HPARAMS,
        &[c('e')],
        Action::ExportChartPrompt,
        "export the chart (PNG/SVG)",
        false,
    ),
    b(
        HPARAMS,
        &[c('r')],
        Action::ReverseSort,
        "reverse the order",
        false,
    ),
    b(
        HPARAMS,
        &[c('x')],
        Action::CycleXAxis,
        "chart: next hyperparameter",
        true,
    ),
    b(
        HPARAMS,
        &[c('m')],
        Action::CycleMetric,
        "chart: next metric",
        true,
    ),
    b(
        HPARAMS,
        &[c('a')],
        Action::PickSelected(super::action::Slot::A),
        "pick as A",
        true,
    ),
    b(
        HPARAMS,
        &[c('b')],
        Action::PickSelected(super::action::Slot::B),
        "pick as B (compare)",
        false,
    ),
    b(
        HPARAMS,
        &[c(']')],
        Action::CycleSweep(1),
        "next sweep",
        false,
    ),
    b(
        HPARAMS,
        &[c('[')],
        Action::CycleSweep(-1),
        "previous sweep",
        false,
    ),
    b(HPARAMS, ENTER, Action::Activate, "show its charts", false),
    // Classify
    b(CLASSIFY, UP_DOWN, Action::Down, "select field", false),
    b(CLASSIFY, ENTER, Action::Activate, "edit / toggle", true),
    b(CLASSIFY, LEFT_RIGHT, Action::Right, "change choice", false),
    b(
        CLASSIFY,
        &[c('s')],
        Action::Classify,
        "classify (MNB and MNB-FM learning curves)",
        true,
    ),
    // Projection
    b(PROJECTION, UP_DOWN, Action::Down, "select option", false),
    b(PROJECTION, ENTER, Action::Activate, "edit / toggle", true),
    b(
        PROJECTION,
        LEFT_RIGHT,
        Action::Right,
        "change choice",
        false,
    ),
    b(
        PROJECTION,
        &[c('p')],
        Action::Project,
        "project run A",
        true,
    ),
    b(
        PROJECTION,
        &[c('b')],
        Action::ProjectPair,
        "project A and B on shared axes (B aligned to A), list the words that moved",
        true,
    ),
    b(
        PROJECTION,
        &[c('+'), c('=')],
        Action::ZoomIn,
        "zoom in",
        false,
    ),
    b(PROJECTION, &[c('-')], Action::ZoomOut, "zoom out", false),
    b(
        PROJECTION,
        &[c('h'), c('j'), c('k'), c('l')],
        Action::Pan(0, 0),
        "pan",
        false,
    ),
    b(
        PROJECTION,
        &[c('H'), c('J'), c('K'), c('L')],
        Action::Turn(0, 0),
        "turn the sphere (UBE): its map's centre moves",
        false,
    ),
    b(
        PROJECTION,
        &[c('0')],
        Action::ResetView,
        "reset zoom, pan and turn",
        false,
    ),
    b(
        PROJECTION,
        &[c('e')],
        Action::ExportPlotPrompt,
        "export PNG/SVG/CSV",
        true,
    ),
    b(
        PROJECTION,
        &[c('/')],
        Action::FindPrompt,
        "find a word",
        true,
    ),
    b(
        PROJECTION,
        &[c('n')],
        Action::NextPoint,
        "select the next word",
        false,
    ),
    b(
        PROJECTION,
        &[c('N')],
        Action::PrevPoint,
        "select the previous word",
        false,
    ),
];

/// The state that decides which contexts are live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mode {
    /// The current screen.
    pub screen: Screen,
    /// A line of text is being typed (field or prompt).
    pub typing: bool,
    /// A yes/no question is open.
    pub confirm: bool,
    /// The help overlay is open.
    pub help: bool,
}

/// The action for a key press in `mode`, if any.
pub fn lookup(mode: Mode, key: KeyEvent) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    let pressed = Key {
        code: key.code,
        // Shift is part of the character for printable keys ('R', '?', '+').
        mods: match key.code {
            KeyCode::Char(_) => key.modifiers - SHIFT,
            _ => key.modifiers,
        },
    };
    if mode.confirm {
        return find(Ctx::Confirm, pressed);
    }
    if mode.help {
        return Some(Action::ToggleHelp);
    }
    if let Some(a) = find(Ctx::Always, pressed) {
        return Some(a);
    }
    if mode.typing {
        return find(Ctx::Typing, pressed).or(match pressed {
            Key {
                code: KeyCode::Char(ch),
                mods: NONE,
            } => Some(Action::Edit(EditOp::Insert(ch))),
            _ => None,
        });
    }
    if let Some(a) = find(Ctx::Screen(mode.screen), pressed) {
        return Some(resolve(pressed, a));
    }
    if pressed.code == KeyCode::BackTab {
        return Some(Action::FocusPrev);
    }
    find(Ctx::Global, pressed)
}

/// Bindings shared by several keys with different meanings (up/down, pan).
fn resolve(key: Key, action: Action) -> Action {
    match (action, key.code) {
        (Action::Down, KeyCode::Up) => Action::Up,
        (Action::Right, KeyCode::Left) => Action::Left,
        (Action::Pan(..), KeyCode::Char('h')) => Action::Pan(-1, 0),
        (Action::Pan(..), KeyCode::Char('l')) => Action::Pan(1, 0),
        (Action::Pan(..), KeyCode::Char('j')) => Action::Pan(0, -1),
        (Action::Pan(..), KeyCode::Char('k')) => Action::Pan(0, 1),
        // The sphere turns so the points move the way the key points.
        (Action::Turn(..), KeyCode::Char('H')) => Action::Turn(-1, 0),
        (Action::Turn(..), KeyCode::Char('L')) => Action::Turn(1, 0),
        (Action::Turn(..), KeyCode::Char('J')) => Action::Turn(0, -1),
        (Action::Turn(..), KeyCode::Char('K')) => Action::Turn(0, 1),
        (a, _) => a,
    }
}

/// `F1`.. and `1`..: screen `i` gets the `i`-th of each.
static SCREEN_FKEYS: [Key; 9] = [
    k(KeyCode::F(1)),
    k(KeyCode::F(2)),
    k(KeyCode::F(3)),
    k(KeyCode::F(4)),
    k(KeyCode::F(5)),
    k(KeyCode::F(6)),
    k(KeyCode::F(7)),
    k(KeyCode::F(8)),
    k(KeyCode::F(9)),
];
static SCREEN_DIGITS: [Key; 9] = [
    c('1'),
    c('2'),
    c('3'),
    c('4'),
    c('5'),
    c('6'),
    c('7'),
    c('8'),
    c('9'),
];

/// The keys that show each screen, made from [`Screen::ALL`] so that a new
/// screen gets its keys (and its lines in help) by being listed there: its
/// function key works everywhere, its digit when nothing is typed.
fn screen_bindings() -> Vec<Binding> {
    const {
        assert!(
            Screen::ALL.len() <= SCREEN_DIGITS.len(),
            "one digit per screen"
        );
    }
    let help = |s: Screen| -> &'static str {
        // Made once per screen, for the life of the program (see `BINDINGS`).
        Box::leak(format!("{} screen", s.title()).into_boxed_str())
    };
    let each = |ctx: Ctx, keys: &'static [Key; 9]| {
        Screen::ALL
            .iter()
            .enumerate()
            .map(move |(i, &s)| b(ctx, &keys[i..=i], Action::GoTo(s), help(s), false))
    };
    each(Always, &SCREEN_FKEYS)
        .chain(each(Global, &SCREEN_DIGITS))
        .collect()
}

/// Every binding: the fixed table, with the screen keys after the other
/// keys of their context.
pub static BINDINGS: LazyLock<Vec<Binding>> = LazyLock::new(|| {
    let screens = screen_bindings();
    let mut all = Vec::with_capacity(FIXED.len() + screens.len());
    let mut rest = screens.into_iter().peekable();
    for (i, fixed) in FIXED.iter().enumerate() {
        all.push(fixed.clone());
        let last_of_ctx = FIXED.get(i + 1).is_none_or(|next| next.ctx != fixed.ctx);
        if last_of_ctx {
            while let Some(s) = rest.next_if(|s| s.ctx == fixed.ctx) {
                all.push(s);
            }
        }
    }
    all.extend(rest);
    all
});

fn find(ctx: Ctx, key: Key) -> Option<Action> {
    BINDINGS
        .iter()
        .find(|b| b.ctx == ctx && b.keys.contains(&key))
        .map(|b| b.action.clone())
}

/// The bindings of one context, for help and hints.
pub fn bindings(ctx: Ctx) -> impl Iterator<Item = &'static Binding> {
    BINDINGS.iter().filter(move |b| b.ctx == ctx)
}

/// How a key is written in help: `Ctrl-S`, `Enter`, `↑`, `q`.
pub fn key_name(key: Key) -> String {
    let base = match key.code {
        KeyCode::Char(' ') => "Space".to_string(),
        KeyCode::Char(ch) => ch.to_string(),
        KeyCode::Enter => "Enter".into(),
        KeyCode::Esc => "Esc".into(),
        KeyCode::Tab => "Tab".into(),
        KeyCode::BackTab => "Shift-Tab".into(),
        KeyCode::Backspace => "Backspace".into(),
        KeyCode::Delete => "Del".into(),
        KeyCode::Up => "↑".into(),
        KeyCode::Down => "↓".into(),
        KeyCode::Left => "←".into(),
        KeyCode::Right => "→".into(),
        KeyCode::Home => "Home".into(),
        KeyCode::End => "End".into(),
        KeyCode::F(n) => format!("F{n}"),
        other => format!("{other:?}"),
    };
    if key.mods.contains(CTRL) {
        format!("Ctrl-{}", base.to_uppercase())
    } else {
        base
    }
}

/// The keys of a binding joined for display: `↑ ↓`, `Enter y`.
pub fn keys_text(binding: &Binding) -> String {
    let names: Vec<String> = binding.keys.iter().map(|k| key_name(*k)).collect();
    names.join(" ")
}

/// The hint line: the hinted bindings of the live contexts, each with its
/// first key (help lists them all), the screen's before the global ones.
pub fn hints(mode: Mode) -> Vec<(String, &'static str)> {
    let contexts: Vec<Ctx> = if mode.confirm {
        vec![Ctx::Confirm]
    } else if mode.help {
        return vec![("any key".into(), "close help")];
    } else if mode.typing {
        vec![Ctx::Typing]
    } else {
        vec![Ctx::Screen(mode.screen), Ctx::Global]
    };
    contexts
        .into_iter()
        .flat_map(bindings)
        .filter(|b| b.hint)
        .map(|b| (key_name(b.keys[0]), b.help))
        .collect()
}

/// The hints that fit in `width` columns, drawn as ` k help · k help`:
/// screen hints are dropped from the end first, so the global `? help`
/// always shows. When the full texts leave a screen hint out, texts are cut
/// to their first word (`Enter choose`, `s start`) where that word is not
/// another hint's too, so the main keys stay.
pub fn fitting_hints(mode: Mode, width: usize) -> Vec<(String, &'static str)> {
    let all = hints(mode);
    let full = fit(&all, width);
    if full.len() == all.len() {
        return full;
    }
    let first = |h: &'static str| h.split([' ', '/']).next().unwrap_or(h);
    let short: Vec<(String, &'static str)> = all
        .iter()
        .map(|(k, h)| {
            let unique = all.iter().filter(|(_, o)| first(o) == first(h)).count() == 1;
            (k.clone(), if unique { first(h) } else { h })
        })
        .collect();
    let shortened = fit(&short, width);
    if shortened.len() > full.len() {
        shortened
    } else {
        full
    }
}

fn fit(all: &[(String, &'static str)], width: usize) -> Vec<(String, &'static str)> {
    let cost = |(k, h): &(String, &str)| k.chars().count() + 1 + h.chars().count() + 3;
    let global: Vec<bool> = all
        .iter()
        .map(|(k, h)| {
            bindings(Ctx::Global).any(|b| key_name(b.keys[0]) == *k && b.help.starts_with(*h))
        })
        .collect();
    let mut used: usize = 1 + all
        .iter()
        .zip(&global)
        .filter(|(_, g)| **g)
        .map(|(h, _)| cost(h))
        .sum::<usize>();
    let mut keep = Vec::new();
    for (h, g) in all.iter().zip(global) {
        if g {
            keep.push(h.clone());
        } else if used + cost(h) <= width + 3 {
            used += cost(h);
            keep.push(h.clone());
        }
    }
    keep
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    fn normal(screen: Screen) -> Mode {
        Mode {
            screen,
            typing: false,
            confirm: false,
            help: false,
        }
    }

    #[test]
    fn screen_keys_win_over_global_ones_and_typing_captures_characters() {
        let m = normal(Screen::Train);
        assert_eq!(
            lookup(m, key(KeyCode::Char('s'), NONE)),
            Some(Action::StartTraining)
        );
        assert_eq!(
            lookup(m, key(KeyCode::Char('2'), NONE)),
            Some(Action::GoTo(Screen::Train))
        );
        assert_eq!(lookup(m, key(KeyCode::Up, NONE)), Some(Action::Up));
        let typing = Mode { typing: true, ..m };
        assert_eq!(
            lookup(typing, key(KeyCode::Char('s'), NONE)),
            Some(Action::Edit(EditOp::Insert('s')))
        );
        assert_eq!(
            lookup(typing, key(KeyCode::Char('Q'), SHIFT)),
            Some(Action::Edit(EditOp::Insert('Q')))
        );
        assert_eq!(
            lookup(typing, key(KeyCode::Char('c'), CTRL)),
            Some(Action::Interrupt)
        );
        assert_eq!(
            lookup(typing, key(KeyCode::F(3), NONE)),
            Some(Action::GoTo(Screen::Runs))
        );
    }

    #[test]
    fn questions_and_help_take_every_key() {
        let m = Mode {
            confirm: true,
            ..normal(Screen::Runs)
        };
        assert_eq!(lookup(m, key(KeyCode::Char('y'), NONE)), Some(Action::Yes));
        assert_eq!(lookup(m, key(KeyCode::Char('q'), NONE)), None);
        let h = Mode {
            help: true,
            ..normal(Screen::Runs)
        };
        assert_eq!(
            lookup(h, key(KeyCode::Char('x'), NONE)),
            Some(Action::ToggleHelp)
        );
    }

    #[test]
    fn shifted_letters_and_pan_keys_resolve() {
        let m = normal(Screen::Runs);
        assert_eq!(
            lookup(m, key(KeyCode::Char('R'), SHIFT)),
            Some(Action::ReplaySelected)
        );
        let p = normal(Screen::Projection);
        assert_eq!(
            lookup(p, key(KeyCode::Char('h'), NONE)),
            Some(Action::Pan(-1, 0))
        );
        assert_eq!(
            lookup(p, key(KeyCode::Char('k'), NONE)),
            Some(Action::Pan(0, 1))
        );
        assert_eq!(
            lookup(p, key(KeyCode::Char('H'), SHIFT)),
            Some(Action::Turn(-1, 0))
        );
        assert_eq!(
            lookup(p, key(KeyCode::Char('K'), SHIFT)),
            Some(Action::Turn(0, 1))
        );
    }

    #[test]
    fn every_listed_screen_gets_a_digit_and_a_function_key() {
        for (i, &screen) in Screen::ALL.iter().enumerate() {
            let digit = char::from_digit(i as u32 + 1, 10).unwrap();
            let f = KeyCode::F(i as u8 + 1);
            assert_eq!(
                lookup(normal(Screen::Runs), key(KeyCode::Char(digit), NONE)),
                Some(Action::GoTo(screen))
            );
            let typing = Mode {
                typing: true,
                ..normal(Screen::Runs)
            };
            assert_eq!(lookup(typing, key(f, NONE)), Some(Action::GoTo(screen)));
            let title = format!("{} screen", screen.title());
            assert_eq!(bindings(Ctx::Global).filter(|b| b.help == title).count(), 1);
        }
    }

    #[test]
    fn every_key_is_bound_once_per_context() {
        for (i, a) in BINDINGS.iter().enumerate() {
            for b in &BINDINGS[i + 1..] {
                if a.ctx == b.ctx {
                    for key in a.keys {
                        assert!(
                            !b.keys.contains(key),
                            "{} bound twice in {:?}",
                            key_name(*key),
                            a.ctx
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn hints_come_from_the_table() {
        let h = hints(normal(Screen::Runs));
        assert!(h.contains(&("a".to_string(), "pick as A")));
        assert!(h.contains(&("q".to_string(), "quit")));
        assert_eq!(key_name(ctrl('s')), "Ctrl-S");
    }

    #[test]
    fn narrow_hint_lines_drop_screen_hints_but_keep_help() {
        let m = normal(Screen::Train);
        let wide = fitting_hints(m, 500);
        assert_eq!(wide, hints(m));
        let narrow = fitting_hints(m, 60);
        assert!(narrow.len() < wide.len());
        assert!(narrow.contains(&("?".to_string(), "help")));
        let drawn: usize = narrow
            .iter()
            .map(|(k, h)| k.chars().count() + 1 + h.chars().count() + 3)
            .sum();
        // One leading space, and no separator after the last hint.
        let width = 1 + drawn - 3;
        assert!(width <= 60, "{narrow:?}");
        assert_eq!(narrow[0], ("Tab".to_string(), "methods"));
        assert!(
            narrow.contains(&("s".to_string(), "start")),
            "the main keys stay: {narrow:?}"
        );
    }
}
