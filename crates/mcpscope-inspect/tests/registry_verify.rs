//! Import server.json's value verification against a registry scripted here (a local HTTP
//! server answering as npm and PyPI do), never a live one: found with its latest version, a
//! pinned version that is not published, not found, a redirect, an unreachable registry, a
//! command missing from the PATH, a remote that answers and one that does not.

use mcpscope_inspect::catalog::registry::{Finding, RegistryChoice};
use mcpscope_inspect::catalog::verify::{Registries, verify_registry};
use std::collections::HashMap;
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A registry answering each path with its status, headers and body (404 for the rest); its
/// base URL.
async fn registry(routes: HashMap<&'static str, (u16, &'static str, &'static str)>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let routes = Arc::new(routes);
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            let routes = routes.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match sock.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&head);
                let path = head.split(' ').nth(1).unwrap_or("").to_string();
                let (status, headers, body) = routes
                    .get(path.as_str())
                    .copied()
                    .unwrap_or((404, "", "{}"));
                let reply = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\n{headers}content-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = sock.write_all(reply.as_bytes()).await;
            });
        }
    });
    base
}

fn doc(packages: &str, remotes: &str) -> String {
    format!(
        r#"{{
  "name": "io.github.someone/weather",
  "version": "1.0.0",
  "packages": [{packages}],
  "remotes": [{remotes}]
}}"#
    )
}

async fn checks(text: &str, choice: RegistryChoice, reg: &Registries) -> Vec<Finding> {
    verify_registry(text, choice, reg).await.unwrap()
}

#[tokio::test]
async fn a_package_is_looked_up_on_its_registry_and_its_command_on_the_path() {
    let base = registry(HashMap::from([
        (
            "/@someone%2Fweather/latest",
            (200, "", r#"{"name":"@someone/weather","version":"2.1.0"}"#),
        ),
        (
            "/@someone%2Fweather/1.0.0",
            (200, "", r#"{"version":"1.0.0"}"#),
        ),
        (
            "/pypi/Weather_MCP/json",
            (301, "location: /pypi/weather-mcp/json\r\n", ""),
        ),
        (
            "/pypi/weather-mcp/json",
            (200, "", r#"{"info":{"version":"0.9.0"}}"#),
        ),
    ]))
    .await;
    let reg = Registries {
        npm: base.clone(),
        pypi: base.clone(),
    };
    let text = doc(
        r#"{"registryType": "npm", "identifier": "@someone/weather", "version": "1.0.0", "runtimeHint": "sh"},
    {"registryType": "npm", "identifier": "@someone/weather", "version": "3.0.0"},
    {"registryType": "npm", "identifier": "no-such-pkg", "runtimeHint": "mcpscope-no-such-runtime"},
    {"registryType": "pypi", "identifier": "Weather_MCP"},
    {"registryType": "oci", "identifier": "ghcr.io/someone/weather"}"#,
        "",
    );

    let pinned = checks(&text, RegistryChoice::Package(0), &reg).await;
    assert_eq!(pinned[0].level, "ok", "{pinned:?}");
    assert!(
        pinned[0]
            .message
            .contains("@someone/weather@1.0.0 (npm); the latest version is 2.1.0"),
        "{pinned:?}"
    );
    assert_eq!(pinned[0].line, Some(4), "the package's line: {pinned:?}");
    assert_eq!(pinned[1].level, "ok");
    assert!(
        pinned[1].message.starts_with("Command sh found: /"),
        "{pinned:?}"
    );

    let unpublished = checks(&text, RegistryChoice::Package(1), &reg).await;
    assert_eq!(unpublished[0].level, "error");
    assert_eq!(unpublished[0].path, "/packages/1/version");
    assert!(
        unpublished[0]
            .message
            .contains("has no version 3.0.0 on npm (the latest is 2.1.0)"),
        "{unpublished:?}"
    );

    let missing = checks(&text, RegistryChoice::Package(2), &reg).await;
    assert_eq!(missing[0].level, "error");
    assert!(
        missing[0]
            .message
            .starts_with("Package not found: no-such-pkg is not on npm"),
        "{missing:?}"
    );
    assert_eq!(missing[1].level, "warning");
    assert!(
        missing[1]
            .message
            .contains("mcpscope-no-such-runtime is not on the PATH"),
        "{missing:?}"
    );

    // PyPI's redirect to the normalised name is followed.
    let pypi = checks(&text, RegistryChoice::Package(3), &reg).await;
    assert_eq!(pypi[0].level, "ok", "{pypi:?}");
    assert!(
        pypi[0]
            .message
            .contains("Weather_MCP (PyPI), latest version 0.9.0"),
        "{pypi:?}"
    );

    let oci = checks(&text, RegistryChoice::Package(4), &reg).await;
    assert_eq!(oci[0].level, "info");
}

#[tokio::test]
async fn an_unreachable_registry_is_could_not_check_and_a_remote_is_asked_if_it_answers() {
    // A port nothing listens on: bound, then closed.
    let dead = {
        let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
        format!("http://{}", l.local_addr().unwrap())
    };
    let live = registry(HashMap::from([("/mcp", (405, "", ""))])).await;
    let reg = Registries {
        npm: dead.clone(),
        pypi: dead.clone(),
    };
    let text = doc(
        r#"{"registryType": "npm", "identifier": "weather"}"#,
        &format!(
            r#"{{"type": "streamable-http", "url": "{live}/mcp"}}, {{"type": "streamable-http", "url": "{dead}/mcp"}}"#
        ),
    );
    let pkg = checks(&text, RegistryChoice::Package(0), &reg).await;
    assert_eq!(pkg[0].level, "warning", "{pkg:?}");
    assert!(
        pkg[0]
            .message
            .starts_with("Could not check weather on npm:"),
        "{pkg:?}"
    );
    let answers = checks(&text, RegistryChoice::Remote(0), &reg).await;
    assert_eq!(answers[0].level, "ok", "{answers:?}");
    assert!(
        answers[0].message.contains("answered HTTP 405"),
        "{answers:?}"
    );
    let silent = checks(&text, RegistryChoice::Remote(1), &reg).await;
    assert_eq!(silent[0].level, "warning", "{silent:?}");
    assert!(silent[0].message.contains("did not answer"), "{silent:?}");
}
