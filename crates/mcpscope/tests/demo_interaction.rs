//! The tools that need the client's help — elicitation (form and URL), sampling, roots — in
//! every era × transport cell, answered by the CLI's flags. Legacy: the server sends a JSON-RPC
//! request and we answer it with the same id. Modern: the server answers `input_required`, and
//! we retry with `inputResponses`, a new request id and `requestState` echoed byte for byte.

use crate::demo_harness::{Cell, Era, Run, each};
use serde_json::{Value, json};

/// Runs `tools/call <tool>` with `extra` flags, `--format json --lint`, expecting exit 0 and a
/// lint-clean exchange.
async fn ask(cell: Cell, tool: &str, extra: &[&str]) -> Run {
    let mut args = vec!["--method", "tools/call", "--tool-name", tool];
    args.extend(extra);
    args.extend(["--format", "json", "--lint"]);
    let run = cell.run(&args).await;
    run.expect_exit(0);
    assert_eq!(run.json()["lint"], json!([]), "{}", run.dump());
    run
}

/// Checks how the server's question and our answer travelled, and returns (question params,
/// our answer) for the caller's own checks.
fn exchange(cell: Cell, run: &Run, method: &str) -> (Value, Value) {
    let received = run.received();
    match cell.era {
        Era::Legacy => {
            // A server→client request on the session, answered with a response of the same id.
            let question = received
                .iter()
                .find(|m| m["method"] == method && m.get("id").is_some())
                .unwrap_or_else(|| panic!("the server did not send {method}\n{}", run.dump()))
                .clone();
            let answer = run
                .sent()
                .into_iter()
                .find(|m| m["id"] == question["id"] && m.get("method").is_none())
                .unwrap_or_else(|| panic!("we did not answer {method}\n{}", run.dump()));
            assert_eq!(run.sent_method("tools/call").len(), 1, "{}", run.dump());
            (question["params"].clone(), answer)
        }
        Era::Modern => {
            // 2026-07-28 servers never send requests.
            assert!(
                received
                    .iter()
                    .all(|m| m.get("method").is_none() || m.get("id").is_none()),
                "{}",
                run.dump()
            );
            let calls = run.sent_method("tools/call");
            assert_eq!(calls.len(), 2, "one round, then the retry\n{}", run.dump());
            let first = run.response_to(&calls[0]["id"])["result"].clone();
            assert_eq!(first["resultType"], "input_required", "{}", run.dump());
            let question = &first["inputRequests"]["answer"];
            assert_eq!(question["method"], method, "{}", run.dump());
            let retry = &calls[1]["params"];
            // A new id, the same method and params, and the server's state echoed verbatim.
            assert_ne!(calls[0]["id"], calls[1]["id"], "{}", run.dump());
            assert_eq!(retry["name"], calls[0]["params"]["name"]);
            assert_eq!(retry["arguments"], calls[0]["params"]["arguments"]);
            let state = first["requestState"].as_str().expect("a requestState");
            assert_eq!(retry["requestState"], state, "{}", run.dump());
            assert!(calls[0]["params"].get("inputResponses").is_none());
            let answer = retry["inputResponses"]["answer"].clone();
            assert!(answer.is_object(), "{}", run.dump());
            (question["params"].clone(), json!({"result": answer}))
        }
    }
}

fn text(run: &Run) -> String {
    run.result()["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text\n{}", run.dump()))
        .to_owned()
}

#[tokio::test]
async fn elicitation_form_accept_defaults_json_and_decline() {
    each(|cell| async move {
        let (defaults, unfilled, custom, declined) = tokio::join!(
            // `email` is required and has no default: the flags must give it.
            ask(
                cell,
                "elicit-form",
                &[
                    "--elicitation",
                    "accept-defaults",
                    "--elicitation-json",
                    r#"{"email":"ada@example.com"}"#
                ],
            ),
            ask(cell, "elicit-form", &["--elicitation", "accept-defaults"]),
            ask(
                cell,
                "elicit-form",
                &[
                    "--elicitation-json",
                    r#"{"name":"Grace Hopper","email":"grace@example.com","guests":3}"#
                ],
            ),
            ask(cell, "elicit-form", &[]),
        );

        let (question, answer) = exchange(cell, &defaults, "elicitation/create");
        // The form asks for one field of every kind elicitation allows.
        let fields = question["requestedSchema"]["properties"]
            .as_object()
            .unwrap();
        for field in [
            "name",
            "email",
            "rating",
            "guests",
            "subscribe",
            "size",
            "plan",
            "toppings",
            "languages",
            "colour",
        ] {
            assert!(
                fields.contains_key(field),
                "{field} missing from {question}"
            );
        }
        // SEP-1034: every default, and nothing for fields without one but the one given.
        assert_eq!(
            answer["result"],
            json!({"action": "accept", "content": {
                "name": "Ada Lovelace", "rating": 4.5, "guests": 2, "subscribe": true,
                "size": "M", "plan": "pro", "toppings": ["cheese"], "languages": ["rust"],
                "email": "ada@example.com"}}),
            "{}",
            defaults.dump()
        );
        // Defaults alone leave the required `email` empty: declined with the reason, never an
        // accept the server must refuse (issue 24 item 9).
        let (_, answer) = exchange(cell, &unfilled, "elicitation/create");
        assert_eq!(
            answer["result"],
            json!({"action": "decline"}),
            "{}",
            unfilled.dump()
        );
        assert!(
            unfilled.json()["warnings"]
                .to_string()
                .contains("requires `email` with no default"),
            "{}",
            unfilled.dump()
        );
        assert!(
            text(&defaults).starts_with("action: accept\n"),
            "{}",
            defaults.dump()
        );

        let (_, answer) = exchange(cell, &custom, "elicitation/create");
        let content = &answer["result"]["content"];
        assert_eq!(answer["result"]["action"], "accept");
        assert_eq!(content["name"], "Grace Hopper", "{}", custom.dump());
        assert_eq!(content["email"], "grace@example.com");
        assert_eq!(content["guests"], 3);
        assert!(
            text(&custom).contains("\"Grace Hopper\""),
            "{}",
            custom.dump()
        );

        let (_, answer) = exchange(cell, &declined, "elicitation/create");
        assert_eq!(answer["result"]["action"], "decline", "{}", declined.dump());
        assert!(answer["result"].get("content").is_none());
        assert_eq!(text(&declined), "action: decline\ncontent: (none)");
    })
    .await;
}

#[tokio::test]
async fn elicitation_url_mode() {
    each(|cell| async move {
        let run = ask(cell, "elicit-url", &["--elicitation", "accept-defaults"]).await;
        let (question, answer) = exchange(cell, &run, "elicitation/create");
        assert_eq!(question["mode"], "url", "{question}");
        assert_eq!(question["url"], "https://example.com/demo-consent");
        if cell.era == Era::Legacy {
            // 2025-11-25 requires an elicitationId for URL mode.
            assert!(
                question["elicitationId"]
                    .as_str()
                    .is_some_and(|id| !id.is_empty()),
                "{question}"
            );
        }
        // URL-mode consent carries no content.
        assert_eq!(
            answer["result"],
            json!({"action": "accept"}),
            "{}",
            run.dump()
        );
        assert!(
            text(&run).starts_with("action: accept (consent to open"),
            "{}",
            run.dump()
        );
    })
    .await;
}

#[tokio::test]
async fn sampling_answered_and_declined() {
    each(|cell| async move {
        let run = ask(
            cell,
            "sample",
            &[
                "--tool-arg",
                "prompt=Capital of France?",
                "--sampling-text",
                "Paris",
            ],
        )
        .await;
        let (question, answer) = exchange(cell, &run, "sampling/createMessage");
        assert_eq!(
            question["messages"][0]["content"],
            json!({"type": "text", "text": "Capital of France?"})
        );
        let result = &answer["result"];
        assert_eq!(result["role"], "assistant", "{}", run.dump());
        assert_eq!(result["content"], json!({"type": "text", "text": "Paris"}));
        assert!(result["model"].is_string(), "{}", run.dump());
        assert_eq!(text(&run), "Paris");

        // Without --sampling-text the CLI declines.
        let run = cell
            .run(&[
                "--method",
                "tools/call",
                "--tool-name",
                "sample",
                "--tool-arg",
                "prompt=x",
                "--format",
                "json",
            ])
            .await;
        match cell.era {
            Era::Legacy => {
                // The refusal is a JSON-RPC error to the server's request; the demo turns it
                // into a tool error.
                run.expect_exit(5);
                let question = run
                    .received()
                    .into_iter()
                    .find(|m| m["method"] == "sampling/createMessage")
                    .expect("the server asked");
                let answer = run
                    .sent()
                    .into_iter()
                    .find(|m| m["id"] == question["id"] && m.get("method").is_none())
                    .expect("we answered");
                assert!(answer["error"]["message"].is_string(), "{}", run.dump());
                assert_eq!(run.result()["isError"], true);
            }
            Era::Modern => {
                // inputResponses has no way to say no, and a retry needs every answer: the
                // request stops, and the error names the flag that would have answered it.
                run.expect_exit(1);
                let error = run.error();
                assert_eq!(error["code"], "input_refused", "{}", run.dump());
                assert!(
                    error["message"]
                        .as_str()
                        .unwrap()
                        .contains("--sampling-text"),
                    "{}",
                    run.dump()
                );
                assert_eq!(run.sent_method("tools/call").len(), 1, "{}", run.dump());
                // --format json: the failure is the one document on stdout too.
                assert_eq!(run.json()["error"], error, "{}", run.dump());
            }
        }
    })
    .await;
}

#[tokio::test]
async fn roots_from_root_flags() {
    each(|cell| async move {
        let run = ask(
            cell,
            "list-roots",
            &[
                "--root",
                "file:///tmp/project",
                "--root",
                "file:///srv/data",
            ],
        )
        .await;
        let (_, answer) = exchange(cell, &run, "roots/list");
        let roots: Vec<&str> = answer["result"]["roots"]
            .as_array()
            .expect("roots")
            .iter()
            .map(|r| r["uri"].as_str().unwrap())
            .collect();
        assert_eq!(
            roots,
            ["file:///tmp/project", "file:///srv/data"],
            "{}",
            run.dump()
        );
        assert_eq!(
            text(&run),
            "2 roots\nfile:///tmp/project (project)\nfile:///srv/data (data)"
        );
    })
    .await;
}
