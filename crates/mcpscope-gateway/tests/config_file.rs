//! The gateways file: errors name the line, edits are picked up, a bad edit keeps the last good.

use crate::support::*;
use serde_json::{Value, json};
use std::time::Duration;

async fn gateway_names(gw: &Under) -> Vec<String> {
    let v: Value = gw
        .client
        .get(format!("{}/api/gateways", gw.base()))
        .header(
            "x-mcp-remote-auth",
            format!("Bearer {}", gw.started.token.clone().unwrap()),
        )
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .map(|b| serde_json::from_slice::<Value>(&b).unwrap_or(Value::Null))
        .unwrap();
    v["gateways"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn a_bad_file_at_start_names_its_line() {
    let dir = TempDir::new("bad");
    let cfg = dir.path().join("gateways.json");
    std::fs::write(&cfg, "{\n  \"gateways\": {\n    \"a\": {\"url\": \"https://x/mcp\",\n      \"user\": [\"ada\"]}\n  }\n}\n").unwrap();
    let mut o = mcpscope_gateway::Options::new(cfg.clone());
    o.port = 0;
    let e = mcpscope_gateway::start(o, mcpscope_gateway::Settings::default())
        .await
        .unwrap_err();
    assert!(e.contains(&format!("{}:4:", cfg.display())), "{e}");
    assert!(e.contains("unknown field `user`"), "{e}");
}

#[tokio::test]
async fn an_edit_is_picked_up_and_a_bad_edit_keeps_the_last_good_file() {
    let (fake, addr) = fake_gateway().await;
    let gw = gateway(
        json!({"gateways": {"one": {"url": format!("http://{addr}/mcp")}}}),
        &[],
        |_| {},
    )
    .await;
    assert_eq!(gateway_names(&gw).await, ["one"]);
    let edited = json!({"gateways": {"two": {"url": format!("http://{addr}/mcp"), "description": "edited"}}});
    std::fs::write(gw.file(), serde_json::to_string_pretty(&edited).unwrap()).unwrap();
    let mut names = Vec::new();
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        names = gateway_names(&gw).await;
        if names == ["two"] {
            break;
        }
    }
    assert_eq!(names, ["two"]);
    let (status, rule, _) = rule_of(gw.post("one", initialize(), &[]).await).await;
    assert_eq!(
        (status, rule.as_str()),
        (404, "gateway-unknown"),
        "a removed gateway is gone at once"
    );
    std::fs::write(
        gw.file(),
        "{\"gateways\": {\"three\": {\"url\": \"not a url\"}}}",
    )
    .unwrap();
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(
        gateway_names(&gw).await,
        ["two"],
        "the bad edit was refused"
    );
    assert_eq!(gw.post("two", initialize(), &[]).await.status(), 200);
    assert_eq!(fake.seen().len(), 1);
}
