//! Resources, prompts and completion against the demo in every era × transport cell:
//! pagination (aggregated, `--first-page`, `--cursor`), reads of text, blob and templated
//! resources, `resources/subscribe` (legacy) and `subscriptions/listen` (modern) for a
//! `--duration`, prompts with arguments, and completions for prompts and templates.

use crate::demo_harness::{Cell, Era, Run, each, header};
use base64::Engine as _;
use serde_json::{Value, json};

/// `--format json --lint` run that must succeed lint-clean.
async fn ok(cell: Cell, args: &[&str]) -> Run {
    let mut all = args.to_vec();
    all.extend(["--format", "json", "--lint"]);
    let run = cell.run(&all).await;
    run.expect_exit(0);
    assert_eq!(run.json()["lint"], json!([]), "{}", run.dump());
    run
}

/// `--format json`, exit 0, for variants whose traffic an `ok` run has already linted.
async fn ok_unlinted(cell: Cell, args: &[&str]) -> Run {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let run = cell.run(&all).await;
    run.expect_exit(0);
    run
}

fn uris(result: &Value, key: &str, field: &str) -> Vec<String> {
    result[key]
        .as_array()
        .unwrap_or_else(|| panic!("no {key} in {result}"))
        .iter()
        .map(|r| r[field].as_str().expect("a string").to_owned())
        .collect()
}

#[tokio::test]
async fn resources_list_pages() {
    each(|cell| async move {
        let all = [
            "demo://readme",
            "demo://logo.png",
            "demo://counter",
            "ui://demo/app.html",
        ];
        // By default the CLI follows nextCursor and prints every page as one list.
        let run = ok(cell, &["--method", "resources/list"]).await;
        assert_eq!(
            uris(&run.result(), "resources", "uri"),
            all,
            "{}",
            run.dump()
        );
        assert!(run.result().get("nextCursor").is_none(), "{}", run.dump());
        let pages = run.sent_method("resources/list");
        assert_eq!(pages.len(), 2, "{}", run.dump());
        assert!(pages[0]["params"].get("cursor").is_none(), "{}", run.dump());
        assert_eq!(pages[1]["params"]["cursor"], "page-2", "{}", run.dump());

        let run = ok_unlinted(cell, &["--method", "resources/list", "--first-page"]).await;
        assert_eq!(uris(&run.result(), "resources", "uri"), all[..2]);
        assert_eq!(run.result()["nextCursor"], "page-2", "{}", run.dump());
        assert_eq!(run.sent_method("resources/list").len(), 1);

        let run = ok_unlinted(cell, &["--method", "resources/list", "--cursor", "page-2"]).await;
        assert_eq!(uris(&run.result(), "resources", "uri"), all[2..]);
        assert!(run.result().get("nextCursor").is_none(), "{}", run.dump());
        assert_eq!(
            run.sent_method("resources/list")[0]["params"]["cursor"],
            "page-2"
        );

        let run = cell
            .run(&[
                "--method",
                "resources/list",
                "--cursor",
                "bogus",
                "--format",
                "json",
            ])
            .await;
        run.expect_exit(1);
        assert_eq!(run.error()["rpcCode"], -32602, "{}", run.dump());

        let run = ok(cell, &["--method", "resources/templates/list"]).await;
        assert_eq!(
            uris(&run.result(), "resourceTemplates", "uriTemplate"),
            ["demo://greeting/{name}", "demo://files/{path}"]
        );
    })
    .await;
}

#[tokio::test]
async fn resources_read_text_blob_and_templates() {
    each(|cell| async move {
        let read = |uri: &'static str| async move {
            let run = ok(cell, &["--method", "resources/read", "--uri", uri]).await;
            let contents = run.result()["contents"].clone();
            assert_eq!(contents[0]["uri"], uri, "{}", run.dump());
            if cell.is_http() && cell.era == Era::Modern {
                let post = run
                    .frames("http-request")
                    .into_iter()
                    .find(|f| f["method"] == "resources/read")
                    .cloned()
                    .expect("the resources/read POST");
                assert_eq!(header(&post, "mcp-name"), Some(uri), "{post}");
            }
            contents[0].clone()
        };
        let (readme, logo, greeting) = tokio::join!(
            read("demo://readme"),
            read("demo://logo.png"),
            read("demo://greeting/Ada"),
        );
        assert_eq!(readme["mimeType"], "text/markdown");
        assert!(readme["text"].as_str().unwrap().contains("pages of two"));
        let png = base64::engine::general_purpose::STANDARD
            .decode(logo["blob"].as_str().expect("a blob"))
            .expect("base64");
        assert!(png.starts_with(b"\x89PNG"));
        assert_eq!(greeting["text"], "Hello, Ada!");

        let run = cell
            .run(&[
                "--method",
                "resources/read",
                "--uri",
                "demo://nowhere",
                "--format",
                "json",
            ])
            .await;
        run.expect_exit(1);
        // 2025-11-25 says -32002; 2026-07-28 says -32602 and forbids -32002.
        let want = if cell.era == Era::Modern {
            -32602
        } else {
            -32002
        };
        assert_eq!(run.error()["rpcCode"], want, "{}", run.dump());
    })
    .await;
}

#[tokio::test]
async fn legacy_subscribe_and_modern_listen_deliver_updates() {
    each(|cell| async move {
        // The counter changes every second: 2.5 s of listening sees at least one update.
        let (method, extra) = match cell.era {
            Era::Legacy => ("resources/subscribe", None),
            Era::Modern => ("subscriptions/listen", Some("tools")),
        };
        let mut args = vec![
            "--method",
            method,
            "--uri",
            "demo://counter",
            "--duration",
            "2500",
        ];
        if let Some(kinds) = extra {
            args.extend(["--listen", kinds]);
        }
        let run = ok(cell, &args).await;
        let notifications = run.json()["notifications"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let updates: Vec<&Value> = notifications
            .iter()
            .filter(|n| n["method"] == "notifications/resources/updated")
            .collect();
        assert!(!updates.is_empty(), "no update in 2.5 s\n{}", run.dump());
        assert!(
            updates
                .iter()
                .all(|n| n["params"]["uri"] == "demo://counter")
        );
        match cell.era {
            Era::Legacy => {
                assert_eq!(run.result(), json!({}), "{}", run.dump());
                let subscribe = run.sent_method("resources/subscribe");
                assert_eq!(subscribe[0]["params"]["uri"], "demo://counter");
                // When --duration is up the CLI unsubscribes before it disconnects.
                let unsubscribe = run.sent_method("resources/unsubscribe");
                assert_eq!(unsubscribe.len(), 1, "{}", run.dump());
                assert_eq!(unsubscribe[0]["params"]["uri"], "demo://counter");
                assert!(run.sent_method("subscriptions/listen").is_empty());
            }
            Era::Modern => {
                let listen = run.sent_method("subscriptions/listen");
                assert_eq!(listen.len(), 1, "{}", run.dump());
                assert_eq!(
                    listen[0]["params"]["notifications"],
                    json!({"toolsListChanged": true, "resourceSubscriptions": ["demo://counter"]})
                );
                let id = &listen[0]["id"];
                let ack = notifications
                    .iter()
                    .find(|n| n["method"] == "notifications/subscriptions/acknowledged")
                    .unwrap_or_else(|| panic!("no acknowledgement\n{}", run.dump()));
                // Listen-stream notifications name the listen request they belong to.
                assert_eq!(
                    ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
                    *id
                );
                for update in &updates {
                    assert_eq!(
                        update["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], *id,
                        "{update}"
                    );
                }
                assert!(run.sent_method("resources/subscribe").is_empty());
            }
        }
    })
    .await;
}

#[tokio::test]
async fn subscribe_and_listen_are_refused_in_the_other_era() {
    each(|cell| async move {
        // resources/subscribe does not exist in 2026-07-28, subscriptions/listen not in
        // 2025-11-25: the server says so with a JSON-RPC error, and the CLI exits 1 at once.
        let method = match cell.era {
            Era::Legacy => "subscriptions/listen",
            Era::Modern => "resources/subscribe",
        };
        let run = cell
            .run(&[
                "--method",
                method,
                "--uri",
                "demo://counter",
                "--duration",
                "30000",
                "--format",
                "json",
            ])
            .await;
        run.expect_exit(1);
        let error = run.error();
        // A 2025-11-25 method that a 2026-07-28 server refuses as unknown (-32601) is our usage,
        // and the message says what to pass (460ace4); any other refusal (the modern HTTP demo's
        // -32020 for the missing Mcp-Name) stays the server's JSON-RPC error.
        if cell.era == Era::Modern && error["rpcCode"] == -32601 {
            assert_eq!(error["code"], "usage", "{}", run.dump());
            assert!(
                error["message"]
                    .as_str()
                    .unwrap()
                    .contains("pass --protocol-era legacy"),
                "{}",
                run.dump()
            );
        } else {
            assert_eq!(error["code"], "rpc_error", "{}", run.dump());
        }
        // Not the server's fault: the method is not in this revision.
        assert!(
            error.get("advertisedCapability").is_none(),
            "{}",
            run.dump()
        );
        assert_eq!(run.json()["error"], error, "{}", run.dump());
    })
    .await;
}

#[tokio::test]
async fn prompts_list_and_get() {
    each(|cell| async move {
        let run = ok(cell, &["--method", "prompts/list"]).await;
        assert_eq!(
            uris(&run.result(), "prompts", "name"),
            ["review", "greet", "showcase", "ask-topic"]
        );
        let review = &run.result()["prompts"][0];
        assert_eq!(
            review["arguments"][0],
            json!({"name": "pr", "description": "Pull request number or URL", "required": true})
        );

        let run = ok(
            cell,
            &[
                "--method",
                "prompts/get",
                "--prompt-name",
                "review",
                "--prompt-args",
                "pr=42",
                "style=thorough",
            ],
        )
        .await;
        let result = run.result();
        assert_eq!(result["description"], "A thorough review of 42");
        assert_eq!(
            result["messages"],
            json!([{"role": "user", "content": {"type": "text",
                "text": "Please review pull request 42. Keep the review thorough."}}])
        );
        if cell.is_http() && cell.era == Era::Modern {
            let post = run
                .frames("http-request")
                .into_iter()
                .find(|f| f["method"] == "prompts/get")
                .cloned()
                .expect("the prompts/get POST");
            assert_eq!(header(&post, "mcp-name"), Some("review"), "{post}");
        }

        let run = ok(
            cell,
            &["--method", "prompts/get", "--prompt-name", "showcase"],
        )
        .await;
        let kinds: Vec<Value> = run.result()["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["content"]["type"].clone())
            .collect();
        assert_eq!(
            kinds,
            ["text", "image", "resource"].map(Value::from),
            "{}",
            run.dump()
        );

        let run = cell
            .run(&[
                "--method",
                "prompts/get",
                "--prompt-name",
                "review",
                "--format",
                "json",
            ])
            .await;
        run.expect_exit(1);
        assert_eq!(run.error()["rpcCode"], -32602, "{}", run.dump());
    })
    .await;
}

#[tokio::test]
async fn completion_for_prompts_and_templates() {
    each(|cell| async move {
        let run = ok(
            cell,
            &[
                "--method",
                "completion/complete",
                "--prompt-name",
                "review",
                "--complete-arg",
                "style=t",
            ],
        )
        .await;
        assert_eq!(run.result()["completion"]["values"], json!(["thorough"]));
        let sent = &run.sent_method("completion/complete")[0]["params"];
        assert_eq!(sent["ref"], json!({"type": "ref/prompt", "name": "review"}));
        assert_eq!(sent["argument"], json!({"name": "style", "value": "t"}));

        let run = ok(
            cell,
            &[
                "--method",
                "completion/complete",
                "--uri",
                "demo://greeting/{name}",
                "--complete-arg",
                "name=Al",
            ],
        )
        .await;
        assert_eq!(
            run.result()["completion"]["values"],
            json!(["Alan", "Alice"]),
            "{}",
            run.dump()
        );
        assert_eq!(
            run.sent_method("completion/complete")[0]["params"]["ref"],
            json!({"type": "ref/resource", "uri": "demo://greeting/{name}"})
        );
    })
    .await;
}
