//! The OAuth fixture checked against the specifications it claims to follow, at the HTTP level:
//! it must refuse what a real authorization server refuses (a wrong PKCE verifier, an unknown
//! client, a missing token), or the CLI tests that rely on it could not fail.

use crate::support::{http, post_json};
use base64::Engine as _;
use mcpscope_testkit::{OAuthFixture, OAuthOptions};
use serde_json::json;
use sha2::{Digest, Sha256};
use std::net::SocketAddr;

fn addr(f: &OAuthFixture) -> SocketAddr {
    let u = url::Url::parse(&f.mcp_url()).unwrap();
    format!("{}:{}", u.host_str().unwrap(), u.port().unwrap())
        .parse()
        .unwrap()
}

fn form(pairs: &[(&str, &str)]) -> Vec<u8> {
    let mut s = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        s.append_pair(k, v);
    }
    s.finish().into_bytes()
}

#[tokio::test]
async fn the_code_flow_with_pkce_and_what_it_refuses() {
    let f = OAuthFixture::spawn(OAuthOptions::default()).await.unwrap();
    let a = addr(&f);

    // Unauthenticated MCP: 401 pointing at the protected resource metadata.
    let r = post_json(
        a,
        "/mcp",
        &[],
        &json!({"jsonrpc":"2.0","id":1,"method":"ping"}),
    )
    .await;
    assert_eq!(r.status, 401);
    let challenge = r.header("www-authenticate").unwrap().to_string();
    assert!(
        challenge.contains("oauth-protected-resource/mcp"),
        "{challenge}"
    );

    let prm = http(
        a,
        "GET",
        "/.well-known/oauth-protected-resource/mcp",
        &[],
        b"",
    )
    .await
    .json();
    assert_eq!(prm["resource"], f.mcp_url());
    assert_eq!(prm["authorization_servers"][0], f.issuer());
    let meta = http(
        a,
        "GET",
        "/.well-known/oauth-authorization-server/as",
        &[],
        b"",
    )
    .await
    .json();
    assert_eq!(meta["issuer"], f.issuer());

    let reg = post_json(
        a,
        "/as/register",
        &[],
        &json!({"redirect_uris": ["http://127.0.0.1:1/cb"]}),
    )
    .await;
    assert_eq!(reg.status, 201);
    let client = reg.json()["client_id"].as_str().unwrap().to_string();

    // An unknown client is refused without a redirect.
    let r = http(
        a,
        "GET",
        "/as/authorize?client_id=nobody&redirect_uri=http://127.0.0.1:1/cb",
        &[],
        b"",
    )
    .await;
    assert_eq!(
        (r.status, r.json()["error"].clone()),
        (400, json!("invalid_client"))
    );

    let verifier = "a-verifier-that-is-long-enough-for-rfc7636-43chars";
    let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(Sha256::digest(verifier.as_bytes()));
    let mut authorize = url::Url::parse("http://x/as/authorize").unwrap();
    authorize
        .query_pairs_mut()
        .append_pair("client_id", &client)
        .append_pair("redirect_uri", "http://127.0.0.1:1/cb")
        .append_pair("response_type", "code")
        .append_pair("code_challenge", &challenge)
        .append_pair("code_challenge_method", "S256")
        .append_pair("state", "s1")
        .append_pair("scope", "mcp:read");
    let path = format!("{}?{}", authorize.path(), authorize.query().unwrap());
    let redirect = http(a, "GET", &path, &[], b"").await;
    assert_eq!(redirect.status, 302);
    let back = url::Url::parse(redirect.header("location").unwrap()).unwrap();
    let q: std::collections::HashMap<_, _> = back.query_pairs().into_owned().collect();
    assert_eq!(q["state"], "s1");
    assert_eq!(q["iss"], f.issuer());
    let code = q["code"].clone();

    let token = |verifier: &'static str, code: String| {
        let client = client.clone();
        let resource = f.mcp_url();
        async move {
            http(
                a,
                "POST",
                "/as/token",
                &[("Content-Type", "application/x-www-form-urlencoded")],
                &form(&[
                    ("grant_type", "authorization_code"),
                    ("code", &code),
                    ("code_verifier", verifier),
                    ("redirect_uri", "http://127.0.0.1:1/cb"),
                    ("client_id", &client),
                    ("resource", &resource),
                ]),
            )
            .await
        }
    };
    // A wrong verifier burns the code.
    let wrong = token("not-the-verifier", code.clone()).await;
    assert_eq!(
        (wrong.status, wrong.json()["error"].clone()),
        (400, json!("invalid_grant"))
    );
    let again = token(verifier, code).await;
    assert_eq!(again.status, 400, "a code is single-use: {}", again.text());

    // The whole flow once more, correctly.
    let redirect = http(a, "GET", &path, &[], b"").await;
    let back = url::Url::parse(redirect.header("location").unwrap()).unwrap();
    let code = back
        .query_pairs()
        .find(|(k, _)| k == "code")
        .unwrap()
        .1
        .into_owned();
    let ok = token(verifier, code).await;
    assert_eq!(ok.status, 200, "{}", ok.text());
    let access = ok.json()["access_token"].as_str().unwrap().to_string();
    let bearer = format!("Bearer {access}");
    let r = post_json(
        a,
        "/mcp",
        &[("Authorization", &bearer)],
        &json!({"jsonrpc":"2.0","id":1,"method":"ping"}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());

    f.revoke_clients();
    let r = post_json(
        a,
        "/mcp",
        &[("Authorization", &bearer)],
        &json!({"jsonrpc":"2.0","id":2,"method":"ping"}),
    )
    .await;
    assert_eq!(r.status, 401, "a revoked client's tokens stop working");
    assert!(
        r.header("www-authenticate")
            .unwrap()
            .contains("invalid_token")
    );
    let s = f.stats();
    assert_eq!(
        (s.registrations, s.code_grants, s.mcp_authorized),
        (1, 1, 1),
        "{s:?}"
    );
}

#[tokio::test]
async fn consent_page_jwt_tokens_and_a_tool_that_needs_more_scope() {
    let f = OAuthFixture::spawn(OAuthOptions {
        consent: true,
        jwt_access_tokens: true,
        tool_scopes: vec![("admin-echo".into(), vec!["mcp:admin".into()])],
        ..Default::default()
    })
    .await
    .unwrap();
    let a = addr(&f);
    let reg = post_json(
        a,
        "/as/register",
        &[],
        &json!({"redirect_uris": ["http://127.0.0.1:1/cb"]}),
    )
    .await;
    let client = reg.json()["client_id"].as_str().unwrap().to_string();
    let verifier = "another-verifier-that-is-long-enough-for-rfc7636";
    let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(Sha256::digest(verifier.as_bytes()));
    let authorize = |state: &str, scope: &str| {
        let mut u = url::Url::parse("http://x/as/authorize").unwrap();
        u.query_pairs_mut()
            .append_pair("client_id", &client)
            .append_pair("redirect_uri", "http://127.0.0.1:1/cb")
            .append_pair("response_type", "code")
            .append_pair("code_challenge", &challenge)
            .append_pair("code_challenge_method", "S256")
            .append_pair("state", state)
            .append_pair("scope", scope);
        format!("{}?{}", u.path(), u.query().unwrap())
    };
    // The consent page names the client and the scopes (escaped), and links Approve / Deny.
    let page = http(a, "GET", &authorize("s1", "mcp:read <b>"), &[], b"").await;
    assert_eq!(page.status, 200);
    let html = page.text();
    assert!(html.contains(&client), "{html}");
    assert!(html.contains("data-scope=\"mcp:read\""), "{html}");
    assert!(
        html.contains("&lt;b&gt;") && !html.contains("<b>\""),
        "{html}"
    );
    let link = |id: &str| {
        let start = html.find(&format!("id={id} href=\"")).unwrap() + id.len() + 10;
        html[start..start + html[start..].find('"').unwrap()].replace("&amp;", "&")
    };
    let deny = http(a, "GET", &link("deny"), &[], b"").await;
    assert_eq!(deny.status, 302);
    let back = url::Url::parse(deny.header("location").unwrap()).unwrap();
    let q: std::collections::HashMap<_, _> = back.query_pairs().into_owned().collect();
    assert_eq!(
        (q["error"].as_str(), q["state"].as_str()),
        ("access_denied", "s1")
    );
    let replay = http(a, "GET", &link("deny"), &[], b"").await;
    assert_eq!(replay.status, 400, "a decision is single-use");

    let page = http(a, "GET", &authorize("s2", "mcp:read"), &[], b"").await;
    let html = page.text();
    let approve_link = {
        let start = html.find("id=approve href=\"").unwrap() + 17;
        html[start..start + html[start..].find('"').unwrap()].replace("&amp;", "&")
    };
    let approve = http(a, "GET", &approve_link, &[], b"").await;
    assert_eq!(approve.status, 302);
    let back = url::Url::parse(approve.header("location").unwrap()).unwrap();
    let q: std::collections::HashMap<_, _> = back.query_pairs().into_owned().collect();
    assert_eq!(q["state"], "s2");
    let token = http(
        a,
        "POST",
        "/as/token",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        &form(&[
            ("grant_type", "authorization_code"),
            ("code", &q["code"]),
            ("code_verifier", verifier),
            ("redirect_uri", "http://127.0.0.1:1/cb"),
            ("client_id", &client),
            ("resource", &f.mcp_url()),
        ]),
    )
    .await;
    assert_eq!(token.status, 200, "{}", token.text());
    let access = token.json()["access_token"].as_str().unwrap().to_string();
    // An RFC 9068 JWT: at+jwt, the issuer, the MCP server as audience, the granted scope.
    let parts: Vec<&str> = access.split('.').collect();
    assert_eq!(parts.len(), 3, "{access}");
    let decode = |p: &str| -> serde_json::Value {
        serde_json::from_slice(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(p)
                .unwrap(),
        )
        .unwrap()
    };
    assert_eq!(decode(parts[0])["typ"], "at+jwt");
    let claims = decode(parts[1]);
    assert_eq!(claims["iss"], f.issuer());
    assert_eq!(claims["aud"], f.mcp_url());
    assert_eq!(claims["scope"], "mcp:read");
    assert!(claims["exp"].as_u64().unwrap() > claims["iat"].as_u64().unwrap());

    // echo works with that token; admin-echo is listed but needs mcp:admin.
    let bearer = format!("Bearer {access}");
    let list = post_json(
        a,
        "/mcp",
        &[("Authorization", &bearer)],
        &json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
    )
    .await;
    let names: Vec<String> = list.json()["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, vec!["echo", "admin-echo"]);
    let call = |tool: &str| json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name": tool, "arguments": {"text": "hi"}}});
    let ok = post_json(a, "/mcp", &[("Authorization", &bearer)], &call("echo")).await;
    assert_eq!(ok.status, 200, "{}", ok.text());
    let refused = post_json(
        a,
        "/mcp",
        &[("Authorization", &bearer)],
        &call("admin-echo"),
    )
    .await;
    assert_eq!(refused.status, 403);
    let challenge = refused.header("www-authenticate").unwrap().to_string();
    assert!(
        challenge.contains(r#"error="insufficient_scope""#)
            && challenge.contains(r#"scope="mcp:admin""#),
        "{challenge}"
    );
    let s = f.stats();
    assert_eq!(
        (s.consent_pages, s.denied, s.code_grants),
        (2, 1, 1),
        "{s:?}"
    );
}
