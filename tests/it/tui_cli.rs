//! The default command outside a terminal: `wordbench` must not hang in CI
//! or a pipe (it runs the demo with a note), and `wordbench tui` says why it
//! cannot start.

use crate::common;

#[test]
fn tui_needs_a_terminal() {
    let out = common::wordbench(&["tui"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the workbench needs a terminal"), "{err}");
}

#[test]
fn the_default_command_falls_back_to_the_demo_in_a_pipe() {
    let out = common::wordbench(&["demo", "--help"]);
    assert!(out.status.success());
    let out = common::wordbench(&[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.lines().next(),
        Some("wordbench: not a terminal, running the demo (`wordbench tui` opens the workbench)")
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("corpus "), "{text}");
    assert!(text.contains("\nking "), "{text}");
}
