//! The Prompts tab: the list on entering (every page), search, a prompt's argument form with
//! completion suggestions and its required fields, `prompts/get` and the messages drawn
//! (text, an image and an embedded resource described); and against the real demo server, a
//! prompt got through the form in both eras.

use crate::real_core::pump;
use crate::resources::{answer, demo, press_real};
use crate::support::*;
use crossterm::event::KeyCode;
use mcpscope_tui::msg::Effect;
use mcpscope_tui::state::AppState;
use mcpscope_tui::tabs::{Tab, TabId};
use serde_json::{Value, json};

fn list() -> Value {
    json!({"prompts": [
        {"name": "review", "title": "Review a pull request", "description": "Asks for a code review of a pull request",
         "arguments": [
            {"name": "pr", "description": "Pull request number or URL", "required": true},
            {"name": "style", "description": "concise, thorough or friendly", "required": false},
         ]},
        {"name": "greet", "title": "Greet someone", "description": "A one-line greeting",
         "arguments": [{"name": "name", "description": "Who to greet", "required": true}]},
        {"name": "showcase", "title": "Multimodal showcase", "description": "Messages with text, an image and an embedded resource"},
    ]})
}

fn loaded(size: (u16, u16)) -> AppState {
    let mut s = state(&[card("demo", "connected", Some("legacy"))], size);
    match &press(&mut s, KeyCode::Char('m'))[..] {
        [Effect::Call { call, .. }] => {
            assert_eq!(call.method, "prompts/list");
            assert_eq!(call.pages.as_deref(), Some("prompts"));
        }
        other => panic!("the list, got {other:?}"),
    }
    send(&mut s, answer(TabId::Prompts, "list", "", list()));
    s
}

fn call_of(e: &[Effect]) -> (String, Value) {
    match e {
        [Effect::Call { call, .. }] => {
            (call.method.clone(), call.params.clone().unwrap_or_default())
        }
        other => panic!("one call expected, got {other:?}"),
    }
}

fn tab(s: &AppState) -> &mcpscope_tui::tabs::prompts::Prompts {
    &s.tabs["demo"].prompts
}

#[test]
fn the_list_and_its_search() {
    for size in SIZES {
        let mut s = loaded(size);
        insta::assert_snapshot!(format!("prompts_list_{}x{}", size.0, size.1), draw(&s));
        press(&mut s, KeyCode::Char('/'));
        type_text(&mut s, "multi");
        assert_eq!(tab(&s).items(), [2]);
        insta::assert_snapshot!(format!("prompts_search_{}x{}", size.0, size.1), draw(&s));
        press(&mut s, KeyCode::Enter);
        assert!(!tab(&s).captures());
        press(&mut s, KeyCode::Esc);
        assert_eq!(tab(&s).items().len(), 3);
    }
}

#[test]
fn the_argument_form_completes_marks_required_and_gets() {
    for size in SIZES {
        let mut s = loaded(size);
        let e = press(&mut s, KeyCode::Enter);
        let (method, params) = call_of(&e);
        assert_eq!(method, "completion/complete");
        assert_eq!(
            params["ref"],
            json!({"type": "ref/prompt", "name": "review"})
        );
        assert_eq!(params["argument"], json!({"name": "pr", "value": ""}));
        send(
            &mut s,
            answer(
                TabId::Prompts,
                "complete",
                "1",
                json!({"completion": {"values": []}}),
            ),
        );
        // Enter with the required field empty says so and stays.
        assert!(press(&mut s, KeyCode::Enter).is_empty());
        type_text(&mut s, "12");
        let none = json!({"completion": {"values": []}});
        // The answer for "1" comes after "2" was typed: the form asks again for "12".
        let e = send(
            &mut s,
            answer(TabId::Prompts, "complete", "1", none.clone()),
        );
        assert_eq!(call_of(&e).1["argument"]["value"], "12");
        assert!(send(&mut s, answer(TabId::Prompts, "complete", "1", none)).is_empty());
        let e = press(&mut s, KeyCode::Tab);
        assert_eq!(call_of(&e).1["context"], json!({"arguments": {"pr": "12"}}));
        let e = send(
            &mut s,
            answer(
                TabId::Prompts,
                "complete",
                "1",
                json!({"completion": {"values": ["concise", "thorough", "friendly"]}}),
            ),
        );
        assert!(e.is_empty());
        press(&mut s, KeyCode::Down);
        insta::assert_snapshot!(format!("prompts_form_{}x{}", size.0, size.1), draw(&s));
        press(&mut s, KeyCode::Enter);
        let e = press(&mut s, KeyCode::Enter);
        let (method, params) = call_of(&e);
        assert_eq!(method, "prompts/get");
        assert_eq!(
            params,
            json!({"name": "review", "arguments": {"pr": "12", "style": "concise"}})
        );
    }
}

#[test]
fn messages_show_roles_text_and_described_media() {
    for size in SIZES {
        let mut s = loaded(size);
        press(&mut s, KeyCode::End);
        // No arguments: Enter gets it at once.
        let e = press(&mut s, KeyCode::Enter);
        assert_eq!(
            call_of(&e),
            (
                "prompts/get".to_string(),
                json!({"name": "showcase", "arguments": {}})
            )
        );
        let result = json!({"description": "A showcase", "messages": [
            {"role": "user", "content": {"type": "text", "text": "Look at this logo and the readme.\n\x1b[2JTwo lines."}},
            {"role": "user", "content": {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="}},
            {"role": "assistant", "content": {"type": "resource", "resource": {"uri": "demo://readme", "mimeType": "text/markdown", "text": "# mcpscope demo"}}},
        ]});
        send(&mut s, answer(TabId::Prompts, "get", "showcase", result));
        let screen = draw(&s);
        assert!(!screen.contains('\x1b'));
        insta::assert_snapshot!(format!("prompts_messages_{}x{}", size.0, size.1), screen);
        press(&mut s, KeyCode::Esc);
        assert!(tab(&s).form.is_none());
    }
}

#[test]
fn a_prompt_error_is_shown_and_reset_forgets_the_list() {
    let mut s = loaded((80, 24));
    press(&mut s, KeyCode::End);
    press(&mut s, KeyCode::Enter);
    let err = mcpscope_tui::msg::Msg::Done(mcpscope_tui::msg::Done {
        route: mcpscope_tui::msg::Route::new("demo", TabId::Prompts, "get", "showcase"),
        result: Ok(
            json!({"historyId": 3, "error": {"code": "rpc", "rpcCode": -32602, "message": "Unknown prompt"}}),
        ),
        was_call: true,
    });
    send(&mut s, err);
    assert!(draw(&s).contains("error: Unknown prompt (-32602)"));
    core(&mut s, "reset", json!({"server": "demo"}));
    assert!(tab(&s).prompts.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_server_gets_a_prompt_through_its_form_in_both_eras() {
    for era in ["legacy", "modern"] {
        let (_dir, i, mut s) = demo(era, (80, 24)).await;
        press_real(&mut s, &i, KeyCode::Char('m')).await;
        let names: Vec<String> = tab(&s)
            .prompts
            .iter()
            .flatten()
            .map(|p| p.name.clone())
            .collect();
        assert!(
            names.contains(&"review".to_string()),
            "{era}: {names:?} {:?}",
            tab(&s).list_error
        );
        let at = names.iter().position(|n| n == "review").unwrap();
        for _ in 0..at {
            press(&mut s, KeyCode::Down);
        }
        press_real(&mut s, &i, KeyCode::Enter).await;
        for c in ['1', '2'] {
            press_real(&mut s, &i, KeyCode::Char(c)).await;
        }
        press_real(&mut s, &i, KeyCode::Tab).await;
        press_real(&mut s, &i, KeyCode::Char('c')).await;
        let form = &tab(&s).form.as_ref().expect("the form").1;
        assert_eq!(form.suggestions(), ["concise"], "{era}");
        press(&mut s, KeyCode::Down);
        press(&mut s, KeyCode::Enter);
        let e = press(&mut s, KeyCode::Enter);
        pump(&mut s, &i, e).await;
        let m = tab(&s).messages.as_ref().expect("messages");
        assert!(m.error.is_none(), "{era}: {:?}", m.error);
        assert_eq!(m.description, "A concise review of 12", "{era}");
        assert!(
            m.pager.text().contains("Please review pull request 12."),
            "{era}"
        );
        i.shutdown().await;
    }
}

#[test]
fn a_click_selects_a_prompt_and_a_second_opens_it() {
    for size in SIZES {
        let mut s = loaded(size);
        // The title, then review, greet, showcase.
        assert!(click(&mut s, 3, 2).is_empty());
        let line = body_line(&s, 2);
        assert!(
            line.contains('▸') && line.contains("Greet someone"),
            "{line}"
        );
        assert!(click(&mut s, 3, 0).is_empty());
        click(&mut s, 3, 2);
        assert!(draw(&s).contains("Who to greet"), "{}", draw(&s));
    }
}
