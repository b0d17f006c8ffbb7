//! The frame around the tabs: the server list, header, tab bar, footer, the `?` help and the
//! quit question, at both sizes.

use crate::support::*;
use crossterm::event::KeyCode;
use mcpscope_tui::modals::Modal;
use mcpscope_tui::msg::Effect;

fn two_servers(size: (u16, u16)) -> mcpscope_tui::state::AppState {
    state(
        &[
            card("demo", "connected", Some("modern")),
            card("everything", "disconnected", None),
        ],
        size,
    )
}

#[test]
fn server_list() {
    for size in SIZES {
        let s = two_servers(size);
        insta::assert_snapshot!(format!("server_list_{}x{}", size.0, size.1), draw(&s));
    }
}

#[test]
fn help_lists_the_app_keys() {
    for size in SIZES {
        let mut s = two_servers(size);
        press(&mut s, KeyCode::Char('?'));
        assert!(matches!(s.modal, Some(Modal::Help { .. })));
        insta::assert_snapshot!(format!("help_{}x{}", size.0, size.1), draw(&s));
        press(&mut s, KeyCode::Esc);
        assert!(s.modal.is_none());
    }
}

#[test]
fn help_wraps_long_descriptions_at_80_columns() {
    // The `+` line was cut at "(the tab takes the width)," with no way to read its end.
    let mut s = two_servers((80, 24));
    press(&mut s, KeyCode::Char('?'));
    let mut seen = String::new();
    for _ in 0..40 {
        seen.push_str(&draw(&s));
        press(&mut s, KeyCode::Down);
    }
    assert!(
        seen.contains("and back"),
        "the end of the zoom line is on screen"
    );
}

#[test]
fn quit_asks_first_only_while_a_call_runs() {
    let mut s = two_servers((80, 24));
    assert!(matches!(
        press(&mut s, KeyCode::Char('q'))[..],
        [Effect::Quit]
    ));
    s.running = 1;
    assert!(press(&mut s, KeyCode::Char('q')).is_empty());
    insta::assert_snapshot!("quit_80x24", draw(&s));
    assert!(matches!(
        press(&mut s, KeyCode::Char('y'))[..],
        [Effect::Quit]
    ));
}

#[test]
fn c_connects_and_disconnects_the_selected_server() {
    let mut s = two_servers((80, 24));
    assert!(matches!(
        press(&mut s, KeyCode::Char('c'))[..],
        [Effect::Disconnect { .. }]
    ));
    press(&mut s, KeyCode::Down);
    assert_eq!(s.current().map(|r| r.name.as_str()), Some("everything"));
    assert!(matches!(
        press(&mut s, KeyCode::Char('c'))[..],
        [Effect::Connect { .. }]
    ));
}

#[test]
fn a_status_event_moves_the_dot() {
    let mut s = two_servers((80, 24));
    core(&mut s, "status", card("everything", "connecting", None));
    assert_eq!(s.servers[1].status, "connecting");
    core(
        &mut s,
        "status",
        card("everything", "connected", Some("legacy")),
    );
    assert!(s.servers[1].connected());
}

/// `c` on a disconnected server gives the keyboard to the tab that shows it (its `/` then
/// searches, letters no longer switch tabs), and the footer says where the keys go; on a
/// connected one the footer offers to disconnect.
#[test]
fn c_gives_the_keyboard_to_the_tab_and_the_footer_says_so() {
    let mut s = two_servers((120, 35));
    let footer = |s: &mcpscope_tui::state::AppState| draw(s).lines().last().unwrap().to_string();
    assert!(footer(&s).contains("Servers │"), "{}", footer(&s));
    assert!(footer(&s).contains("c disconnect"), "demo is connected");
    press(&mut s, KeyCode::Down);
    assert!(footer(&s).contains("c connect"), "{}", footer(&s));
    let e = press(&mut s, KeyCode::Char('c'));
    assert!(matches!(&e[..], [Effect::Connect { .. }]), "{e:?}");
    assert_eq!(s.focus, mcpscope_tui::state::Focus::Tab);
    assert!(footer(&s).starts_with(" Tools │"), "{}", footer(&s));
    let connected = card("everything", "connected", Some("legacy"));
    send(
        &mut s,
        mcpscope_tui::msg::Msg::Core(mcpscope_tui::msg::CoreEvent {
            name: "status".into(),
            data: connected,
        }),
    );
    press(&mut s, KeyCode::Char('/'));
    type_text(&mut s, "samp");
    assert_eq!(
        s.tab,
        mcpscope_tui::tabs::TabId::Tools,
        "the letters went to the search"
    );
    assert!(draw(&s).contains("/samp"), "{}", draw(&s));
}
