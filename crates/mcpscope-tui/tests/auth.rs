//! The Auth tab: the core's AuthView drawn (authorized with discovery and scopes; a login
//! waiting, its URL opened, copied and shown whole; OAuth not applying); re-authorize, cancel,
//! forget on a second D.

use crate::support::*;
use crossterm::event::KeyCode;
use mcpscope_tui::msg::{Done, Effect, Msg, Route};
use mcpscope_tui::state::AppState;
use serde_json::{Value, json};

const URL: &str = "http://127.0.0.1:9/authorize?response_type=code&client_id=mcpscope-test&redirect_uri=http%3A%2F%2F127.0.0.1%3A6276%2Foauth%2Fcallback&scope=read%20write&state=abc123&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&resource=http%3A%2F%2F127.0.0.1%3A9%2Fmcp";

fn base(state: &str) -> Value {
    json!({
        "server": "remote", "applies": true, "state": state, "pending": null, "summary": null,
        "error": null, "secretStore": {"kind": "file", "location": "/data/secrets.enc",
            "reason": "MCPSCOPE_SECRETS_FILE is set"},
        "callbackUrl": "http://127.0.0.1:6276/oauth/callback", "stored": null,
    })
}

fn authorized() -> Value {
    let mut v = base("authorized");
    v["summary"] = json!({
        "issuer": "http://127.0.0.1:9", "authorizationServerMetadata": "http://127.0.0.1:9/.well-known/oauth-authorization-server",
        "protectedResourceMetadata": "http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp",
        "resource": "http://127.0.0.1:9/mcp",
        "client": {"clientId": "c-42", "registration": "dynamic client registration", "tokenEndpointAuthMethod": "none"},
        "scope": "read write", "requestedScope": "read write admin", "tokenType": "Bearer",
        "expiresAt": NOW_US / 1_000_000 + 3_000, "refreshToken": true, "profile": "default",
    });
    v
}

fn pending() -> Value {
    let mut v = base("authorizing");
    v["pending"] = json!({"id": "login-1", "url": URL, "issuer": "http://127.0.0.1:9",
        "scopes": ["read", "write"], "reason": "login", "startedAt": "2026-05-28T20:26:40Z"});
    v
}

fn route_of(e: &[Effect]) -> Route {
    match e {
        [Effect::Run { route, .. }, ..] => route.clone(),
        other => panic!("{other:?}"),
    }
}

fn remote(size: (u16, u16)) -> AppState {
    let mut c = card("remote", "connected", Some("modern"));
    c["transport"] = json!("http");
    c["target"] = json!("http://127.0.0.1:9/mcp");
    state(&[c], size)
}

fn opened(size: (u16, u16), v: Value) -> (AppState, Vec<Effect>) {
    let mut s = remote(size);
    let e = press(&mut s, KeyCode::Char('a'));
    let route = route_of(&e);
    assert_eq!(route.tag, "view");
    let e = send(
        &mut s,
        Msg::Done(Done {
            route,
            result: Ok(v),
            was_call: false,
        }),
    );
    (s, e)
}

#[test]
fn authorized_with_what_discovery_found() {
    for size in SIZES {
        let (s, e) = opened(size, authorized());
        assert!(e.is_empty());
        insta::assert_snapshot!(format!("auth_authorized_{}x{}", size.0, size.1), draw(&s));
    }
}

#[test]
fn a_login_is_opened_copied_and_shown_once() {
    for size in SIZES {
        let (mut s, _) = opened(size, base("none"));
        let e = core(&mut s, "auth", pending());
        assert!(
            matches!(&e[..], [Effect::Copy(c), Effect::OpenUrl(u)] if c == URL && u == URL),
            "{e:?}"
        );
        assert!(
            core(&mut s, "auth", pending()).is_empty(),
            "the same login is opened once"
        );
        insta::assert_snapshot!(format!("auth_pending_{}x{}", size.0, size.1), draw(&s));
        assert!(matches!(&press(&mut s, KeyCode::Char('y'))[..], [Effect::Copy(c)] if c == URL));
        assert!(matches!(&press(&mut s, KeyCode::Char('b'))[..], [Effect::OpenUrl(u)] if u == URL));
        assert_eq!(route_of(&press(&mut s, KeyCode::Char('x'))).tag, "cancel");
    }
}

#[test]
fn forget_needs_a_second_d_and_reauthorize_asks_the_core() {
    let (mut s, _) = opened((80, 24), authorized());
    assert!(press(&mut s, KeyCode::Char('D')).is_empty());
    assert!(draw(&s).contains("Press D again"));
    assert_eq!(route_of(&press(&mut s, KeyCode::Char('D'))).tag, "forget");
    assert!(
        press(&mut s, KeyCode::Char('D')).is_empty(),
        "armed again only by a D"
    );
    press(&mut s, KeyCode::Down);
    assert!(
        press(&mut s, KeyCode::Char('D')).is_empty(),
        "another key in between disarms it"
    );
    assert_eq!(
        route_of(&press(&mut s, KeyCode::Char('u'))).tag,
        "reauthorize"
    );
}

#[test]
fn oauth_does_not_apply_to_stdio() {
    let mut v = base("none");
    v["applies"] = json!(false);
    let (mut s, _) = opened((80, 24), v);
    let screen = draw(&s);
    insta::assert_snapshot!("auth_not_applies_80x24", screen);
    // At 80 columns the tab is 56 wide: the sentence wraps, read whole.
    let body: String = screen
        .lines()
        .filter_map(|l| l.split('│').nth(3))
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        body.contains("sets its own Authorization header)."),
        "{screen}"
    );
    // No login is offered where OAuth does not apply; a login key says why.
    let footer = screen.lines().last().unwrap_or_default();
    assert!(!footer.contains("re-authorize"), "{footer}");
    assert!(!footer.contains("login URL"), "{footer}");
    let e = press(&mut s, KeyCode::Char('u'));
    assert!(
        matches!(&e[..], [])
            && s.toast
                .as_ref()
                .is_some_and(|t| t.text.contains("only to HTTP")),
        "{e:?} {:?}",
        s.toast
    );
}

#[test]
fn a_callback_that_cannot_listen_is_said() {
    let (mut s, _) = opened((80, 24), pending());
    let e = core(
        &mut s,
        "warning",
        json!({"server": "remote", "frameSeq": null,
            "message": "login callback: cannot listen on 127.0.0.1:6276 (address in use)"}),
    );
    assert!(e.is_empty(), "the toast is the reducer's");
    assert!(
        s.toast
            .as_ref()
            .is_some_and(|t| t.error && t.text.contains("6276"))
    );
    assert!(draw(&s).contains("cannot listen"));
    assert!(
        core(
            &mut s,
            "warning",
            json!({"server": "remote", "message": "other"})
        )
        .is_empty()
    );
}
