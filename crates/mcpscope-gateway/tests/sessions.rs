//! Sealed session ids across replicas (`docs/gateway.md` "Sessions"): two relays started with
//! the same `MCPSCOPE_GATEWAY_SESSION_KEY` in front of one recording gateway, as two pods behind
//! a Service. What the browser holds is never the gateway's id; what the gateway receives is
//! exactly its own.

use crate::support::*;
use serde_json::{Value, json};

const KEY: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
const OTHER_KEY: &str = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210";

fn file(addr: std::net::SocketAddr) -> Value {
    json!({"gateways": {
        "shared": {"url": format!("http://{addr}/mcp")},
        "other": {"url": format!("http://{addr}/mcp")},
        "long": {"url": format!("http://{addr}/longsession/mcp")},
        "longest": {"url": format!("http://{addr}/longestsession/mcp")}
    }})
}

/// A replica in team mode (users from `X-Forwarded-User`, the proxy on loopback).
async fn replica(addr: std::net::SocketAddr, env: &[(&str, &str)]) -> Under {
    gateway(file(addr), env, |o| {
        o.trusted_proxies = vec!["127.0.0.1/32".into()]
    })
    .await
}

/// `initialize` as `user` on `gateway`: the session id the browser got.
async fn open(replica: &Under, gateway: &str, user: &str) -> String {
    let resp = replica
        .post(gateway, initialize(), &[("x-forwarded-user", user)])
        .await;
    assert_eq!(resp.status(), 200);
    resp.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_string()
}

/// `tools/list` as `user` in `session`.
async fn list(replica: &Under, gateway: &str, user: &str, session: &str) -> reqwest::Response {
    replica
        .post(
            gateway,
            request(2, "tools/list", json!({})),
            &[("x-forwarded-user", user), ("mcp-session-id", session)],
        )
        .await
}

/// The refusal every session id the relay did not seal for this user and gateway gets.
async fn assert_refused(resp: reqwest::Response, session: &str) {
    let (status, rule, body) = rule_of(resp).await;
    assert_eq!((status, rule.as_str()), (404, "session-owner"), "{body}");
    assert_eq!(body["error"]["code"], "not_found");
    assert!(
        !body.to_string().contains(session),
        "the session id is not in the error"
    );
}

#[tokio::test]
async fn a_session_opened_through_one_replica_is_used_through_the_other() {
    let (fake, addr) = fake_gateway().await;
    let a = replica(addr, &[("MCPSCOPE_GATEWAY_SESSION_KEY", KEY)]).await;
    let b = replica(addr, &[("MCPSCOPE_GATEWAY_SESSION_KEY", KEY)]).await;
    let sealed = open(&a, "shared", "ada").await;
    // The fake's first session is `sess-0`: the browser holds something else, and only visible
    // ASCII (a valid Mcp-Session-Id).
    assert_ne!(sealed, "sess-0");
    assert!(!sealed.contains("sess-0"));
    assert!(sealed.bytes().all(|c| (0x21..=0x7e).contains(&c)));
    let resp = list(&b, "shared", "ada", &sealed).await;
    assert_eq!(resp.status(), 200);
    let body: Value = serde_json::from_slice(&resp.bytes().await.unwrap()).unwrap();
    assert_eq!(body["result"]["tools"][0]["name"], "toystore_greet");
    let seen = fake.seen_on("/mcp");
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].header("mcp-session-id"), None);
    assert_eq!(
        seen[1].header("mcp-session-id"),
        Some("sess-0"),
        "the gateway gets exactly its own id"
    );
    // Ending it goes through either replica, with the gateway's id.
    let del = a
        .client
        .delete(format!("{}/api/gateways/shared/mcp", a.base()))
        .header("x-forwarded-user", "ada")
        .header("mcp-session-id", &sealed)
        .send()
        .await
        .unwrap();
    assert_eq!(del.status(), 200);
    let seen = fake.seen_on("/mcp");
    assert_eq!(seen[2].method, "DELETE");
    assert_eq!(seen[2].header("mcp-session-id"), Some("sess-0"));
}

#[tokio::test]
async fn another_key_or_no_shared_key_refuses_the_session() {
    let (fake, addr) = fake_gateway().await;
    let a = replica(addr, &[("MCPSCOPE_GATEWAY_SESSION_KEY", KEY)]).await;
    let other = replica(addr, &[("MCPSCOPE_GATEWAY_SESSION_KEY", OTHER_KEY)]).await;
    let sealed = open(&a, "shared", "ada").await;
    assert_refused(list(&other, "shared", "ada", &sealed).await, &sealed).await;
    // Without a key each process makes its own: one replica works, a second refuses.
    let (p, q) = (replica(addr, &[]).await, replica(addr, &[]).await);
    let mine = open(&p, "shared", "ada").await;
    assert_eq!(list(&p, "shared", "ada", &mine).await.status(), 200);
    assert_refused(list(&q, "shared", "ada", &mine).await, &mine).await;
    let sent_with_session = fake
        .seen()
        .iter()
        .filter(|s| s.header("mcp-session-id").is_some())
        .count();
    assert_eq!(
        sent_with_session, 1,
        "only the accepted one reached the gateway"
    );
    // A rotation: the new key seals, the old one is still accepted.
    let rotated = format!("{OTHER_KEY},{KEY}");
    let r = replica(addr, &[("MCPSCOPE_GATEWAY_SESSION_KEY", &rotated)]).await;
    assert_eq!(list(&r, "shared", "ada", &sealed).await.status(), 200);
    let fresh = open(&r, "shared", "ada").await;
    assert_eq!(list(&other, "shared", "ada", &fresh).await.status(), 200);
    assert_refused(list(&a, "shared", "ada", &fresh).await, &fresh).await;
}

#[tokio::test]
async fn another_users_or_gateways_session_never_reaches_the_gateway() {
    let (fake, addr) = fake_gateway().await;
    let a = replica(addr, &[("MCPSCOPE_GATEWAY_SESSION_KEY", KEY)]).await;
    let b = replica(addr, &[("MCPSCOPE_GATEWAY_SESSION_KEY", KEY)]).await;
    let adas = open(&a, "shared", "ada").await;
    let before = fake.seen().len();
    for replica in [&a, &b] {
        assert_refused(list(replica, "shared", "bob", &adas).await, &adas).await;
        assert_refused(list(replica, "other", "ada", &adas).await, &adas).await;
    }
    // The gateway's own id, sent as it is, is not a way around the seal.
    assert_refused(list(&b, "shared", "ada", "sess-0").await, "sess-0").await;
    assert_eq!(fake.seen().len(), before, "none of them left the relay");
}

#[tokio::test]
async fn a_tampered_seal_is_refused() {
    let (fake, addr) = fake_gateway().await;
    let a = replica(addr, &[("MCPSCOPE_GATEWAY_SESSION_KEY", KEY)]).await;
    let sealed = open(&a, "shared", "ada").await;
    let _second = open(&a, "shared", "ada").await; // sess-1 exists at the gateway
    let (id, tag) = sealed.split_once('.').unwrap();
    let mut flipped = tag.as_bytes().to_vec();
    flipped[0] = if flipped[0] == b'A' { b'B' } else { b'A' };
    let tampered = [
        // Another id (sess-1, base64url) under this one's MAC.
        format!("c2Vzcy0x.{tag}"),
        format!("{id}.{}", String::from_utf8(flipped).unwrap()),
        format!("{id}.{}", &tag[..tag.len() - 1]),
        format!("{sealed}x"),
        id.to_string(),
        format!("{}.{tag}", "A".repeat(2000)),
    ];
    let before = fake.seen().len();
    for t in &tampered {
        assert_refused(list(&a, "shared", "ada", t).await, t).await;
    }
    // Two session headers: neither is chosen.
    let resp = a
        .client
        .post(format!("{}/api/gateways/shared/mcp", a.base()))
        .header("content-type", "application/json")
        .header("x-forwarded-user", "ada")
        .header("mcp-session-id", &sealed)
        .header("mcp-session-id", &sealed)
        .body(request(3, "tools/list", json!({})).to_string())
        .send()
        .await
        .unwrap();
    assert_refused(resp, &sealed).await;
    assert_eq!(fake.seen().len(), before);
    assert_eq!(list(&a, "shared", "ada", &sealed).await.status(), 200);
}

#[tokio::test]
async fn a_gateway_session_id_over_a_kib_is_refused_naming_the_rule() {
    let (fake, addr) = fake_gateway().await;
    let a = replica(addr, &[("MCPSCOPE_GATEWAY_SESSION_KEY", KEY)]).await;
    let resp = a
        .post("long", initialize(), &[("x-forwarded-user", "ada")])
        .await;
    assert!(resp.headers().get("mcp-session-id").is_none());
    let (status, rule, body) = rule_of(resp).await;
    assert_eq!((status, rule.as_str()), (502, "session-id"), "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("1024"));
    // At the bound it is relayed, sealed, and comes back whole.
    let sealed = open(&a, "longest", "ada").await;
    assert!(sealed.len() < 1500, "{}", sealed.len());
    assert_eq!(list(&a, "longest", "ada", &sealed).await.status(), 200);
    let last = fake.seen_on("/longestsession/mcp").pop().unwrap();
    assert_eq!(
        last.header("mcp-session-id"),
        Some("s".repeat(1024).as_str())
    );
}

#[tokio::test]
async fn a_short_session_key_is_a_start_up_error_saying_how_to_make_one() {
    let e = mcpscope_gateway::Settings::from_lookup(|k| {
        (k == "MCPSCOPE_GATEWAY_SESSION_KEY").then(|| "hunter2".to_string())
    })
    .unwrap_err();
    assert!(
        e.contains("MCPSCOPE_GATEWAY_SESSION_KEY")
            && e.contains("at least 32 bytes")
            && e.contains("openssl rand -hex 32")
            && !e.contains("hunter2"),
        "{e}"
    );
}
