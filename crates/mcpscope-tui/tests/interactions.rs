//! Answering the server: the interaction modals of each kind drawn at both sizes (a form with a
//! validation error, a URL, sampling with its editor, roots, an unknown method), the exact
//! answer each key produces, the queue behind the open question, a hostile payload's control
//! characters, and the answers reaching the real demo server.

use crate::support::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mcpscope_inspect::Answer;
use mcpscope_tui::modals::Modal;
use mcpscope_tui::msg::Effect;
use mcpscope_tui::state::AppState;
use serde_json::{Value, json};

/// An `Interaction` as the core publishes it (`interactionOpened`), due in 4:59.
fn interaction(id: u64, kind: &str, method: &str, payload: Value) -> Value {
    json!({
        "id": id,
        "server": "demo",
        "historyId": 12,
        "kind": kind,
        "method": method,
        "payload": payload,
        "origin": "server request 5",
        "round": null,
        "key": null,
        "roundKeys": null,
        "maxRounds": null,
        "openedAtUs": NOW_US - 1_000_000,
        "deadlineUs": NOW_US + 299_000_000,
    })
}

/// The demo's form (`elicit-form`): every field type elicitation allows.
fn form_payload() -> Value {
    json!({
        "message": "Please fill in the demo form (every field type elicitation supports).",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "title": "Full name", "description": "As it should appear on the badge",
                         "minLength": 2, "maxLength": 50, "default": "Ada Lovelace"},
                "email": {"type": "string", "title": "Email", "format": "email"},
                "guests": {"type": "integer", "title": "Guests", "minimum": 1, "maximum": 10, "default": 2},
                "subscribe": {"type": "boolean", "title": "Subscribe to news", "default": true},
                "size": {"type": "string", "title": "T-shirt size", "enum": ["S", "M", "L", "XL"], "default": "M"},
                "toppings": {"type": "array", "title": "Toppings", "minItems": 1, "maxItems": 3,
                             "items": {"type": "string", "enum": ["cheese", "olives", "mushrooms"]},
                             "default": ["cheese"]},
                "code": {"type": "string", "title": "Code", "pattern": "^[A-Z]{3}$"}
            },
            "required": ["name", "email"]
        }
    })
}

fn sampling_payload() -> Value {
    json!({
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}},
            {"role": "assistant", "content": {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}},
        ],
        "systemPrompt": "You are terse.",
        "maxTokens": 200,
        "modelPreferences": {"hints": [{"name": "claude"}], "speedPriority": 0.5},
    })
}

fn open(size: (u16, u16), questions: &[Value]) -> AppState {
    let mut s = state(&[card("demo", "connected", Some("legacy"))], size);
    for q in questions {
        core(&mut s, "interactionOpened", q.clone());
    }
    assert!(matches!(s.modal, Some(Modal::Interaction(_))));
    s
}

fn ctrl(s: &mut AppState, c: char) -> Vec<Effect> {
    send(
        s,
        mcpscope_tui::msg::Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)),
    )
}

/// The one answer among `effects`.
fn answer_of(effects: &[Effect]) -> Option<(u64, Answer)> {
    effects.iter().find_map(|e| match e {
        Effect::Answer { id, answer } => Some((*id, answer.clone())),
        _ => None,
    })
}

#[test]
fn form_shows_its_errors_and_sends_nothing_until_they_are_fixed() {
    for size in SIZES {
        let q = interaction(1, "elicitationForm", "elicitation/create", form_payload());
        let mut s = open(size, &[q]);
        let e = press(&mut s, KeyCode::Enter);
        assert!(answer_of(&e).is_none(), "an invalid form sends nothing");
        assert!(s.modal.is_some());
        let screen = draw(&s);
        assert!(screen.contains("✗ required"), "{screen}");
        insta::assert_snapshot!(format!("interaction_form_{}x{}", size.0, size.1), screen);
    }
}

#[test]
fn form_accepts_the_values_the_web_would_send() {
    let q = interaction(7, "elicitationForm", "elicitation/create", form_payload());
    let mut s = open((80, 24), &[q]);
    press(&mut s, KeyCode::Down);
    type_text(&mut s, "ada@");
    press(&mut s, KeyCode::Enter);
    assert!(draw(&s).contains("must be an email address"));
    type_text(&mut s, "example.com");
    // The code's pattern is checked too.
    for _ in 0..5 {
        press(&mut s, KeyCode::Down);
    }
    type_text(&mut s, "abc");
    assert!(answer_of(&press(&mut s, KeyCode::Enter)).is_none());
    assert!(draw(&s).contains("must match the pattern"));
    for _ in 0..3 {
        press(&mut s, KeyCode::Backspace);
    }
    type_text(&mut s, "ABC");
    // Toppings: their choices opened (Space), olives ticked too, Enter done; size: one on
    // (M → L); subscribe: off.
    press(&mut s, KeyCode::Up);
    press(&mut s, KeyCode::Char(' '));
    press(&mut s, KeyCode::Down);
    press(&mut s, KeyCode::Char(' '));
    press(&mut s, KeyCode::Enter);
    press(&mut s, KeyCode::Up);
    press(&mut s, KeyCode::Right);
    press(&mut s, KeyCode::Up);
    press(&mut s, KeyCode::Char(' '));
    let e = press(&mut s, KeyCode::Enter);
    assert_eq!(
        answer_of(&e),
        Some((
            7,
            Answer::Accept(json!({
                "name": "Ada Lovelace", "email": "ada@example.com", "guests": 2,
                "subscribe": false, "size": "L", "toppings": ["cheese", "olives"], "code": "ABC"
            }))
        ))
    );
    assert!(s.modal.is_none());
}

#[test]
fn form_declines_and_cancels_without_checking() {
    let q = interaction(3, "elicitationForm", "elicitation/create", form_payload());
    let mut s = open((80, 24), std::slice::from_ref(&q));
    assert_eq!(answer_of(&ctrl(&mut s, 'd')), Some((3, Answer::Decline)));
    let mut s = open((80, 24), &[q]);
    assert_eq!(
        answer_of(&press(&mut s, KeyCode::Esc)),
        Some((3, Answer::Cancel))
    );
}

#[test]
fn a_schema_outside_the_subset_is_answered_as_json() {
    let payload = json!({"message": "raw", "requestedSchema": [1, 2]});
    let mut s = open(
        (80, 24),
        &[interaction(
            4,
            "elicitationForm",
            "elicitation/create",
            payload,
        )],
    );
    assert!(draw(&s).contains("Answered as JSON: the requested schema is not an object"));
    // The editor starts with `{}`: a field typed in before the closing brace.
    press(&mut s, KeyCode::Left);
    type_text(&mut s, "\"a\": 1");
    let e = ctrl(&mut s, 's');
    assert_eq!(answer_of(&e), Some((4, Answer::Accept(json!({"a": 1})))));
}

fn url_question(url: &str) -> Value {
    interaction(
        5,
        "elicitationUrl",
        "elicitation/create",
        json!({"mode": "url", "message": "Please consent.", "url": url, "elicitationId": "e-1"}),
    )
}

#[test]
fn url_shows_the_host_and_its_keys() {
    for size in SIZES {
        let url = "https://user@auth.example.com/authorize?client=mcpscope&state=xyz";
        let s = open(size, &[url_question(url)]);
        let screen = draw(&s);
        assert!(screen.contains("Host: auth.example.com"), "{screen}");
        insta::assert_snapshot!(format!("interaction_url_{}x{}", size.0, size.1), screen);
    }
}

#[test]
fn url_keys_open_copy_accept_decline_cancel() {
    let url = "https://auth.example.com/authorize";
    let mut s = open((80, 24), &[url_question(url)]);
    let e = press(&mut s, KeyCode::Char('y'));
    assert!(matches!(&e[..], [Effect::Copy(u)] if u == url));
    assert!(s.modal.is_some(), "copying keeps the dialog open");
    let e = press(&mut s, KeyCode::Char('o'));
    assert!(matches!(&e[0], Effect::OpenUrl(u) if u == url));
    assert_eq!(answer_of(&e), Some((5, Answer::Accept(Value::Null))));
    for (key, want) in [
        (KeyCode::Char('a'), Answer::Accept(Value::Null)),
        (KeyCode::Char('d'), Answer::Decline),
        (KeyCode::Esc, Answer::Cancel),
    ] {
        let mut s = open((80, 24), &[url_question(url)]);
        assert_eq!(answer_of(&press(&mut s, key)), Some((5, want)));
    }
}

#[test]
fn a_script_url_is_never_opened_or_accepted() {
    let mut s = open((80, 24), &[url_question("javascript:alert(1)")]);
    assert!(press(&mut s, KeyCode::Char('o')).is_empty());
    assert!(press(&mut s, KeyCode::Char('a')).is_empty());
    assert!(draw(&s).contains("Not opened: the javascript: scheme is refused"));
    assert_eq!(
        answer_of(&press(&mut s, KeyCode::Char('d'))),
        Some((5, Answer::Decline))
    );
}

fn sampling_question() -> Value {
    interaction(6, "sampling", "sampling/createMessage", sampling_payload())
}

#[test]
fn sampling_with_its_editor() {
    for size in SIZES {
        let mut s = open(size, &[sampling_question()]);
        type_text(&mut s, "Paris.");
        press(&mut s, KeyCode::Enter);
        type_text(&mut s, "Second line");
        let screen = draw(&s);
        assert!(screen.contains("Max tokens: 200"), "{screen}");
        insta::assert_snapshot!(
            format!("interaction_sampling_{}x{}", size.0, size.1),
            screen
        );
    }
}

#[test]
fn sampling_sends_a_create_message_result() {
    let mut s = open((80, 24), &[sampling_question()]);
    type_text(&mut s, "Paris.");
    press(&mut s, KeyCode::Enter);
    type_text(&mut s, "Bye");
    press(&mut s, KeyCode::Tab);
    for _ in 0.."mcpscope-manual".len() {
        press(&mut s, KeyCode::Backspace);
    }
    type_text(&mut s, "gpt-test");
    press(&mut s, KeyCode::Tab);
    press(&mut s, KeyCode::Down);
    let e = ctrl(&mut s, 's');
    assert_eq!(
        answer_of(&e),
        Some((
            6,
            Answer::Accept(json!({
                "role": "assistant",
                "content": {"type": "text", "text": "Paris.\nBye"},
                "model": "gpt-test",
                "stopReason": "stopSequence"
            }))
        ))
    );
}

#[test]
fn sampling_rejects_cancels_and_asks_the_testing_profile() {
    let mut s = open((80, 24), &[sampling_question()]);
    assert_eq!(answer_of(&ctrl(&mut s, 'd')), Some((6, Answer::Decline)));
    let mut s = open((80, 24), &[sampling_question()]);
    let e = ctrl(&mut s, 'p');
    assert!(
        matches!(&e[..], [Effect::Run { route, .. }] if route.tag == "interaction" && route.key == "6:answer")
    );
    assert!(s.modal.is_some(), "the core's closed event closes it");
    let mut s = open((80, 24), &[sampling_question()]);
    let e = ctrl(&mut s, 'f');
    assert!(
        matches!(&e[..], [Effect::Run { route, .. }] if route.tag == "interaction" && route.key == "6" && route.tab.is_none())
    );
    assert!(
        s.modal.is_some(),
        "asking the profile keeps the dialog open"
    );
    // Its answer fills the editor.
    let profile = json!({
        "profile": {"name": "canned"}, "active": {"profile": "canned"},
        "answer": {"action": "accept", "content": {"role": "assistant",
            "content": {"type": "text", "text": "From the profile"}, "model": "canned-model", "stopReason": "endTurn"}},
        "refused": null, "delayMs": 0
    });
    send(
        &mut s,
        mcpscope_tui::msg::Msg::Done(mcpscope_tui::msg::Done {
            route: mcpscope_tui::msg::Route {
                server: "demo".into(),
                tab: None,
                tag: "interaction",
                key: "6".into(),
            },
            result: Ok(profile),
            was_call: false,
        }),
    );
    let screen = draw(&s);
    assert!(screen.contains("From the profile"), "{screen}");
    assert!(
        screen.contains("filled from Testing Profile «canned»"),
        "{screen}"
    );
    let (_, a) = answer_of(&ctrl(&mut s, 's')).expect("sent");
    let Answer::Accept(v) = a else {
        panic!("{a:?}")
    };
    assert_eq!(v["model"], "canned-model");
    assert_eq!(v["content"]["text"], "From the profile");
}

#[test]
fn roots_and_other_methods() {
    for size in SIZES {
        let q = interaction(8, "other", "x/custom", json!({"anything": [1, 2, 3]}));
        let s = open(size, &[q]);
        insta::assert_snapshot!(format!("interaction_other_{}x{}", size.0, size.1), draw(&s));
    }
    let q = interaction(8, "other", "x/custom", json!({}));
    let mut s = open((80, 24), std::slice::from_ref(&q));
    assert!(
        press(&mut s, KeyCode::Char('a')).is_empty(),
        "no accept for an unknown method"
    );
    assert_eq!(
        answer_of(&press(&mut s, KeyCode::Char('d'))),
        Some((8, Answer::Decline))
    );
    let mut s = open((80, 24), &[q]);
    assert_eq!(
        answer_of(&press(&mut s, KeyCode::Esc)),
        Some((8, Answer::Cancel))
    );
    let q = interaction(9, "roots", "roots/list", json!({}));
    let mut s = open((80, 24), &[q]);
    let screen = draw(&s);
    assert!(screen.contains("Roots Request"), "{screen}");
    assert!(screen.contains("none configured"), "{screen}");
    assert_eq!(
        answer_of(&press(&mut s, KeyCode::Enter)),
        Some((9, Answer::Accept(json!([]))))
    );
}

/// A state whose server `demo` has `roots` in its catalog entry, a roots question open.
fn roots_open(size: (u16, u16), roots: Value) -> AppState {
    let mut c = card("demo", "connected", Some("legacy"));
    c["entry"]["roots"] = roots;
    let mut s = state(&[c], size);
    core(
        &mut s,
        "interactionOpened",
        interaction(9, "roots", "roots/list", json!({})),
    );
    s
}

#[test]
fn roots_lists_the_configured_roots_and_sends_them() {
    let roots = json!([
        {"uri": "file:///home/ada/project", "name": "Project"},
        {"uri": "file:///tmp/scratch"}
    ]);
    for size in SIZES {
        let s = roots_open(size, roots.clone());
        let screen = draw(&s);
        assert!(screen.contains("Configured roots (2)"), "{screen}");
        assert!(
            screen.contains("file:///home/ada/project  Project"),
            "{screen}"
        );
        insta::assert_snapshot!(format!("interaction_roots_{}x{}", size.0, size.1), screen);
    }
    let mut s = roots_open((80, 24), roots.clone());
    assert_eq!(
        answer_of(&press(&mut s, KeyCode::Enter)),
        Some((9, Answer::Accept(roots.clone())))
    );
    assert!(s.modal.is_none());
    for (key, want) in [
        (KeyCode::Char('d'), Answer::Decline),
        (KeyCode::Esc, Answer::Cancel),
    ] {
        let mut s = roots_open((80, 24), roots.clone());
        assert_eq!(answer_of(&press(&mut s, key)), Some((9, want)));
    }
}

#[test]
fn roots_edited_are_checked_then_sent() {
    for size in SIZES {
        let mut s = roots_open(size, json!([{"uri": "file:///home/ada/project"}]));
        press(&mut s, KeyCode::Char('e'));
        press(&mut s, KeyCode::Enter);
        type_text(&mut s, "https://example.com/x");
        assert!(ctrl(&mut s, 's').is_empty(), "a bad root is not sent");
        let screen = draw(&s);
        assert!(screen.contains("roots must be file:// URIs"), "{screen}");
        insta::assert_snapshot!(
            format!("interaction_roots_edit_{}x{}", size.0, size.1),
            screen
        );
    }
    let mut s = roots_open((80, 24), json!([{"uri": "file:///home/ada/project"}]));
    press(&mut s, KeyCode::Char('e'));
    press(&mut s, KeyCode::Enter);
    type_text(&mut s, "file:///srv/data Data");
    assert_eq!(
        answer_of(&ctrl(&mut s, 's')),
        Some((
            9,
            Answer::Accept(json!([
                {"uri": "file:///home/ada/project"},
                {"uri": "file:///srv/data", "name": "Data"}
            ]))
        ))
    );
    // Esc in the editor goes back to the list, unsent.
    let mut s = roots_open((80, 24), json!([]));
    press(&mut s, KeyCode::Char('e'));
    assert!(press(&mut s, KeyCode::Esc).is_empty());
    assert!(draw(&s).contains("Configured roots (0)"));
}

#[test]
fn an_accepted_url_waits_for_the_servers_complete_notification() {
    for size in SIZES {
        let mut s = open(size, &[url_question("https://auth.example.com/authorize")]);
        let e = press(&mut s, KeyCode::Char('a'));
        assert_eq!(answer_of(&e), Some((5, Answer::Accept(Value::Null))));
        let screen = draw(&s);
        assert!(
            screen.contains("Waiting for the server to say the flow is complete"),
            "{screen}"
        );
        assert!(!screen.contains("Declined automatically"), "{screen}");
        insta::assert_snapshot!(
            format!("interaction_url_wait_{}x{}", size.0, size.1),
            screen
        );
    }
    let mut s = open(
        (80, 24),
        &[url_question("https://auth.example.com/authorize")],
    );
    press(&mut s, KeyCode::Char('a'));
    // The core closes the question as accepted: the wait goes on.
    core(
        &mut s,
        "interactionClosed",
        json!({"id": 5, "server": "demo", "outcome": "accepted", "kind": "elicitationUrl"}),
    );
    assert!(s.modal.is_some());
    let complete = |server: &str, id: &str| {
        json!({"server": server, "method": "notifications/elicitation/complete",
               "params": {"elicitationId": id}})
    };
    // Another id, another server: still waiting.
    core(&mut s, "notification", complete("demo", "e-2"));
    core(&mut s, "notification", complete("other", "e-1"));
    assert!(s.modal.is_some());
    core(&mut s, "notification", complete("demo", "e-1"));
    assert!(s.modal.is_none());
    let toast = s.toast.as_ref().map(|t| t.text.clone()).unwrap_or_default();
    assert!(toast.contains("URL flow is complete"), "{toast}");
    // Esc stops waiting, sending nothing more.
    let mut s = open(
        (80, 24),
        &[url_question("https://auth.example.com/authorize")],
    );
    press(&mut s, KeyCode::Char('a'));
    assert!(press(&mut s, KeyCode::Esc).is_empty());
    assert!(s.modal.is_none());
    // A question closed otherwise (timed out before the answer landed) closes the wait too.
    let mut s = open(
        (80, 24),
        &[url_question("https://auth.example.com/authorize")],
    );
    press(&mut s, KeyCode::Char('a'));
    core(
        &mut s,
        "interactionClosed",
        json!({"id": 5, "server": "demo", "outcome": "timedOut", "reason": "timed out"}),
    );
    assert!(s.modal.is_none());
}

#[test]
fn a_modern_url_question_has_no_id_to_wait_for() {
    let q = interaction(
        6,
        "elicitationUrl",
        "elicitation/create",
        json!({"mode": "url", "message": "Consent.", "url": "https://auth.example.com/x"}),
    );
    let mut s = open((80, 24), &[q]);
    let e = press(&mut s, KeyCode::Char('a'));
    assert_eq!(answer_of(&e), Some((6, Answer::Accept(Value::Null))));
    assert!(s.modal.is_none());
}

#[test]
fn cancelling_the_call_dismisses_the_questions_it_caused() {
    let mut s = state(&[card("demo", "connected", Some("legacy"))], (80, 24));
    // The call's history entry, pending, as the core publishes it before sending.
    core(
        &mut s,
        "history",
        json!({"id": 12, "server": "demo", "method": "tools/call", "status": "pending",
               "requestId": "tui-tools-1"}),
    );
    let mut other = interaction(3, "elicitationForm", "elicitation/create", form_payload());
    other["historyId"] = json!(99);
    for q in [
        interaction(1, "elicitationForm", "elicitation/create", form_payload()),
        interaction(2, "sampling", "sampling/createMessage", sampling_payload()),
        other,
    ] {
        core(&mut s, "interactionOpened", q);
    }
    assert!(draw(&s).contains("^X cancels the call"), "{}", draw(&s));
    let e = ctrl(&mut s, 'x');
    assert!(
        matches!(&e[0], Effect::Cancel { request_id } if request_id == "tui-tools-1"),
        "the cancel goes first: {e:?}"
    );
    let mut answered: Vec<(u64, Answer)> = e
        .iter()
        .filter_map(|e| match e {
            Effect::Answer { id, answer } => Some((*id, answer.clone())),
            _ => None,
        })
        .collect();
    answered.sort_by_key(|(id, _)| *id);
    assert_eq!(answered, vec![(1, Answer::Cancel), (2, Answer::Cancel)]);
    let toast = s.toast.as_ref().map(|t| t.text.clone()).unwrap_or_default();
    assert!(toast.contains("cancelled with its call"), "{toast}");
    // The question another request asked is the one open now.
    match &s.modal {
        Some(Modal::Interaction(d)) => assert_eq!(d.id(), 3),
        other => panic!("{other:?}"),
    }
    assert_eq!(s.interactions.len(), 1);
    // Its cause is not a call of ours in flight: no ^X.
    assert!(!draw(&s).contains("^X cancels the call"));
    assert!(ctrl(&mut s, 'x').is_empty());
}

#[test]
fn a_finished_call_no_longer_links_its_questions() {
    let mut s = state(&[card("demo", "connected", Some("legacy"))], (80, 24));
    let entry = |status: &str| {
        json!({"id": 12, "server": "demo", "method": "tools/call", "status": status,
               "requestId": "tui-tools-1"})
    };
    core(&mut s, "history", entry("pending"));
    core(&mut s, "history", entry("ok"));
    core(
        &mut s,
        "interactionOpened",
        interaction(1, "elicitationForm", "elicitation/create", form_payload()),
    );
    assert!(!draw(&s).contains("^X cancels the call"));
}

#[test]
fn the_queue_behind_is_counted_and_opens_next() {
    let mut s = open(
        (80, 24),
        &[url_question("https://a.example/"), sampling_question()],
    );
    assert!(draw(&s).contains("1 more waiting"));
    press(&mut s, KeyCode::Char('d'));
    // The answer closes the dialog; the core's closed event takes it out of the queue.
    core(
        &mut s,
        "interactionClosed",
        json!({"id": 5, "server": "demo", "outcome": "declined"}),
    );
    let screen = draw(&s);
    assert!(screen.contains("Sampling Request"), "{screen}");
    assert!(!screen.contains("more waiting"));
}

#[test]
fn a_round_says_where_it_is() {
    let mut q = interaction(10, "elicitationForm", "elicitation/create", form_payload());
    q["round"] = json!(2);
    q["maxRounds"] = json!(8);
    q["key"] = json!("team");
    q["roundKeys"] = json!(3);
    q["origin"] = json!("input_required round 2 of tools/call, key \"team\"");
    // The round's three keys arrive together: the first is key 1 of 3.
    let key = |id: u64, k: &str| {
        let mut x = q.clone();
        x["id"] = json!(id);
        x["key"] = json!(k);
        x
    };
    let mut s = open(
        (160, 45),
        &[q.clone(), key(20, "email"), key(21, "newsletter")],
    );
    let screen = draw(&s);
    assert!(screen.contains("Operation Needs Input"), "{screen}");
    assert!(
        screen.contains("Round 2 of at most 8 · key 1 of 3: \"team\""),
        "{screen}"
    );
    assert!(screen.contains("2 more waiting"));
    ctrl(&mut s, 'd');
    assert!(draw(&s).contains("key 2 of 3: \"email\""));
    ctrl(&mut s, 'd');
    assert!(draw(&s).contains("key 3 of 3"));
}

#[test]
fn control_characters_a_server_sends_never_reach_the_terminal() {
    let evil = "Hi\x1b[2J\x1b]0;pwned\x07 there\u{202e}";
    let payload = json!({"message": evil, "requestedSchema": {"type": "object", "properties": {
        "x\x1b[31m": {"type": "string", "title": "T\x1b[2Jitle", "description": "d\x1b[2J"}}}});
    let mut q = interaction(11, "elicitationForm", "elicitation/create", payload);
    q["server"] = json!("demo");
    q["origin"] = json!("server request \x1b[2J9");
    let s = open((80, 24), &[q]);
    let screen = draw(&s);
    assert!(!screen.contains('\x1b'), "{screen:?}");
    assert!(!screen.contains('\x07'));
    assert!(screen.contains("Hi␛[2J␛]0;pwned␇ there"), "{screen}");
    let url = url_question("https://ok.example/\x1b[2J");
    let s = open((80, 24), &[url]);
    assert!(!draw(&s).contains('\x1b'));
}

/// The real demo server (`mcpscope demo-server` over stdio, built by `cargo build -p mcpscope`)
/// in both eras: its `elicit-form` and `sample` tools answered through the dialog's keys, the
/// effects performed on the core as the loop performs them, the tools' results saying what the
/// dialog sent.
mod demo {
    use super::*;
    use mcpscope_inspect::{Call, Catalog, CatalogEntry, Inspector, Interaction, Options};
    use mcpscope_tui::effects;
    use mcpscope_tui::modals::Outcome;
    use mcpscope_tui::modals::interaction::Dialog;
    use std::sync::Arc;
    use std::time::Duration;

    fn binary() -> std::path::PathBuf {
        let p =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/debug/mcpscope");
        assert!(
            p.exists(),
            "build the demo first: cargo build -p mcpscope ({})",
            p.display()
        );
        p
    }

    fn inspector(dir: &std::path::Path) -> Arc<Inspector> {
        let bin = binary().display().to_string();
        let entries = ["legacy", "modern"]
            .into_iter()
            .map(|era| {
                let e: CatalogEntry = serde_json::from_value(
                    json!({"command": bin, "args": ["demo-server"], "protocolEra": era}),
                )
                .expect("entry");
                (era.to_string(), e.normalized())
            })
            .collect();
        let store = mcpscope_store::HistoryStore::open(
            &dir.join("history.sqlite"),
            mcpscope_store::Retention::default(),
        )
        .expect("history");
        let options = Options {
            ping_interval: None,
            secrets: Some(mcpscope_store::SecretStoreConfig::file(
                dir.join("secrets.enc"),
                None,
            )),
            ..Options::default()
        };
        Inspector::new(Catalog::in_memory(entries), store, options)
    }

    /// The first question `server` asks, once it is waiting.
    async fn question(i: &Arc<Inspector>, server: &str) -> Interaction {
        for _ in 0..300 {
            if let Some(q) = i.interactions().into_iter().find(|q| q.server == server) {
                return q;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("{server} asked nothing within 30 s");
    }

    /// Call `tool` with `args`, answer its question with `keys` pressed in its dialog, and give
    /// the tool's text.
    async fn answered(
        i: &Arc<Inspector>,
        server: &str,
        tool: &str,
        args: Value,
        keys: &[KeyEvent],
    ) -> String {
        let call = {
            let i = i.clone();
            let server = server.to_string();
            let c = Call {
                method: "tools/call".into(),
                params: Some(json!({"name": tool, "arguments": args})),
                ..Call::default()
            };
            tokio::spawn(async move { i.call(&server, c).await })
        };
        let q = question(i, server).await;
        let mut d = Dialog::new(serde_json::to_value(&q).expect("interaction"));
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        let mut closed = false;
        for k in keys {
            let e = match d.key(*k) {
                Outcome::Stay(e) => e,
                Outcome::Close(e) => {
                    closed = true;
                    e
                }
            };
            for e in e {
                effects::perform(i, e, &tx);
            }
        }
        assert!(closed, "the keys answered {server}'s {tool} question");
        let out = tokio::time::timeout(Duration::from_secs(30), call)
            .await
            .expect("the call ends")
            .expect("the task")
            .expect("the call");
        let r = out.result.expect("a result");
        r.pointer("/content/0/text")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    }

    fn k(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn typed(text: &str) -> Vec<KeyEvent> {
        text.chars().map(|c| k(KeyCode::Char(c))).collect()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_demo_server_gets_the_dialogs_answers_in_both_eras() {
        let dir = std::env::temp_dir().join(format!("mcpscope-tui-dialogs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let i = inspector(&dir);
        for era in ["legacy", "modern"] {
            i.connect(era, None).await.expect("connect");
            // The form: its defaults, the required email typed in, Enter.
            let mut keys = vec![k(KeyCode::Down)];
            keys.extend(typed("ada@example.com"));
            keys.push(k(KeyCode::Enter));
            let text = answered(&i, era, "elicit-form", json!({}), &keys).await;
            assert!(text.contains("action: accept"), "{era}: {text}");
            assert!(
                text.contains("\"email\":\"ada@example.com\""),
                "{era}: {text}"
            );
            assert!(text.contains("\"name\":\"Ada Lovelace\""), "{era}: {text}");
            // Sampling: the response typed, Ctrl-S.
            let mut keys = typed("Paris, said the terminal.");
            keys.push(KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL));
            let text = answered(
                &i,
                era,
                "sample",
                json!({"prompt": "Capital of France?"}),
                &keys,
            )
            .await;
            assert_eq!(text, "Paris, said the terminal.", "{era}");
            // Declined: the tool hears the decline.
            let keys = [KeyEvent::new(KeyCode::Char('d'), KeyModifiers::CONTROL)];
            let text = answered(&i, era, "elicit-form", json!({}), &keys).await;
            assert!(text.contains("action: decline"), "{era}: {text}");
        }
        i.shutdown().await;
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The loop's side of a test: where the effects' answers come back, and the next event.
    struct Loop {
        tx: tokio::sync::mpsc::UnboundedSender<mcpscope_tui::msg::Msg>,
        rx: tokio::sync::mpsc::UnboundedReceiver<mcpscope_tui::msg::Msg>,
        from: u64,
    }

    /// Perform `effects` and feed the core's events (from `l.from` on) and the effects' answers
    /// through the reducer, performing what they bring, until `done` holds (at most 30 s).
    async fn drive(
        i: &Arc<Inspector>,
        s: &mut AppState,
        effects: Vec<Effect>,
        l: &mut Loop,
        done: impl Fn(&AppState) -> bool,
    ) {
        let Loop { tx, rx, from } = l;
        for e in effects {
            effects::perform(i, e, tx);
        }
        for _ in 0..600 {
            let (events, _) = i.events().since(*from, 10_000);
            let mut more = Vec::new();
            for e in events {
                *from = e.id + 1;
                let data = serde_json::from_str(&e.data).expect("an event is JSON");
                let m = mcpscope_tui::msg::Msg::Core(mcpscope_tui::msg::CoreEvent {
                    name: e.name.to_string(),
                    data,
                });
                more.extend(send(s, m));
            }
            while let Ok(m) = rx.try_recv() {
                more.extend(send(s, m));
            }
            for e in more {
                effects::perform(i, e, tx);
            }
            if done(s) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("not there within 30 s; the screen:\n{}", draw(s));
    }

    /// A tool that elicits, called through the Tools tab; ^X in its dialog cancels the call:
    /// the dialog goes with a toast, the call ends cancelled, and the core's queue is empty.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn cancelling_a_call_closes_the_question_it_asked_in_both_eras() {
        let dir = std::env::temp_dir().join(format!(
            "mcpscope-tui-cancel-ask-{}-{}",
            std::process::id(),
            mcpscope_tui::app::now_us()
        ));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let i = inspector(&dir);
        for era in ["legacy", "modern"] {
            let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
            let from = i.events().last_id() + 1;
            let mut l = Loop { tx, rx, from };
            i.connect(era, None).await.expect("connect");
            let cards = i.servers().await;
            let mut s = AppState::new(&cards, (160, 45), false);
            s.selected = s.servers.iter().position(|r| r.name == era).expect("row");
            let e = press(&mut s, KeyCode::Char('t'));
            drive(&i, &mut s, e, &mut l, |s| draw(s).contains("elicit-form")).await;
            press(&mut s, KeyCode::Char('/'));
            type_text(&mut s, "elicit-form");
            press(&mut s, KeyCode::Enter);
            press(&mut s, KeyCode::Enter);
            let e = ctrl(&mut s, 'r');
            assert!(matches!(&e[..], [Effect::Call { .. }]), "{era}: {e:?}");
            drive(&i, &mut s, e, &mut l, |s| {
                matches!(s.modal, Some(Modal::Interaction(_)))
            })
            .await;
            let screen = draw(&s);
            assert!(screen.contains("^X cancels the call"), "{era}: {screen}");
            let e = ctrl(&mut s, 'x');
            assert!(s.modal.is_none(), "{era}: the dialog went");
            let toast = s.toast.as_ref().map(|t| t.text.clone()).unwrap_or_default();
            assert!(toast.contains("cancelled with its call"), "{era}: {toast}");
            drive(&i, &mut s, e, &mut l, |s| {
                draw(s).contains("Cancelled after")
            })
            .await;
            assert!(
                i.interactions().iter().all(|q| q.server != era),
                "{era}: the core's queue holds nothing of it"
            );
            assert!(s.modal.is_none(), "{era}: nothing opened again");
        }
        i.shutdown().await;
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_server_without_a_testing_profile_is_told_in_the_dialog() {
    let mut s = open((80, 24), &[sampling_question()]);
    let e = ctrl(&mut s, 'p');
    let Some(Effect::Run { route, .. }) = e.into_iter().next() else {
        panic!("a job")
    };
    send(
        &mut s,
        mcpscope_tui::msg::Msg::Done(mcpscope_tui::msg::Done {
            route,
            result: Err(mcpscope_tui::msg::Failure {
                code: "not_found".into(),
                message: "server \"demo\" has no active Testing Profile".into(),
                body: Value::Null,
            }),
            was_call: false,
        }),
    );
    assert!(s.modal.is_some());
    assert!(draw(&s).contains("has no active Testing Profile"));
    // The answer of another question's job is not this dialog's.
    assert!(s.toast.is_none());
}

#[test]
fn the_focused_field_stays_in_view_at_80x24() {
    let q = interaction(12, "elicitationForm", "elicitation/create", form_payload());
    let mut s = open((80, 24), &[q]);
    for _ in 0..6 {
        press(&mut s, KeyCode::Down);
    }
    let screen = draw(&s);
    assert!(screen.contains("› Code"), "{screen}");
}

#[test]
fn a_flood_of_messages_is_bounded() {
    let big = "x".repeat(5 << 20);
    let many: Vec<Value> = (0..10_000)
        .map(|_| json!({"role": "user", "content": {"type": "text", "text": big.clone()}}))
        .take(3)
        .chain((0..10_000).map(|i| json!({"role": "user", "content": {"type": "text", "text": format!("m{i}\n").repeat(100)}})))
        .collect();
    let q = interaction(
        13,
        "sampling",
        "sampling/createMessage",
        json!({"messages": many}),
    );
    let started = std::time::Instant::now();
    let s = open((160, 45), &[q]);
    let screen = draw(&s);
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert!(screen.contains("Sampling Request"));
}

/// Ctrl-U clears a field however it got focus (typed into, or reached by Tab, Shift-Tab, ↑):
/// what is typed next replaces the text rather than being appended to it.
#[test]
fn ctrl_u_clears_a_field_reached_by_tab_shift_tab_or_up() {
    let ctrl_u = KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL);
    for back in [KeyCode::BackTab, KeyCode::Up] {
        let q = interaction(8, "elicitationForm", "elicitation/create", form_payload());
        let mut s = open((80, 24), &[q]);
        press(&mut s, KeyCode::Tab);
        type_text(&mut s, "zz@y.io");
        // To the next field and back: the email has focus again, not its edit.
        press(&mut s, KeyCode::Tab);
        press(&mut s, back);
        send(&mut s, mcpscope_tui::msg::Msg::Key(ctrl_u));
        type_text(&mut s, "ada@example.com");
        let screen = draw(&s);
        assert!(!screen.contains("zz@y.io"), "{back:?}: {screen}");
        let e = press(&mut s, KeyCode::Enter);
        let Some((8, Answer::Accept(v))) = answer_of(&e) else {
            panic!("{back:?}: {e:?}\n{}", draw(&s))
        };
        assert_eq!(v["email"], "ada@example.com", "{back:?}");
    }
}
