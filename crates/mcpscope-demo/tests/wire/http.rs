//! The demo over Streamable HTTP, served in-process by `serve_http_on` and driven with raw
//! requests: exact headers and JSON-RPC bodies in, status, headers and SSE events out.

use std::time::Duration;

use futures::StreamExt as _;
use serde_json::{Value, json};
use tokio::{net::TcpListener, sync::oneshot};

const WAIT: Duration = Duration::from_secs(5);
const ACCEPT: &str = "application/json, text/event-stream";

/// A demo server on a free loopback port, stopped when dropped.
struct Server {
    url: String,
    stop: Option<oneshot::Sender<()>>,
    done: tokio::task::JoinHandle<anyhow::Result<()>>,
    http: reqwest::Client,
}

impl Server {
    async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let (stop, stopped) = oneshot::channel::<()>();
        let done = tokio::spawn(mcpscope_demo::serve_http_on(listener, async move {
            let _ = stopped.await;
        }));
        Self {
            url,
            stop: Some(stop),
            done,
            http: reqwest::Client::new(),
        }
    }

    fn post(&self, body: &Value) -> reqwest::RequestBuilder {
        self.http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", ACCEPT)
            .body(serde_json::to_vec(body).unwrap())
    }

    /// A 2026-07-28 POST with the standard headers the spec requires.
    fn modern(&self, body: &Value) -> reqwest::RequestBuilder {
        let mut request = self
            .post(body)
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", body["method"].as_str().unwrap());
        let params = &body["params"];
        if let Some(name) = params["name"].as_str().or(params["uri"].as_str()) {
            request = request.header("mcp-name", name);
        }
        request
    }

    async fn shutdown(mut self) {
        let _ = self.stop.take().unwrap().send(());
        tokio::time::timeout(WAIT, &mut self.done)
            .await
            .expect("serve_http_on returns once shutdown resolves")
            .unwrap()
            .unwrap();
    }
}

/// Reads an SSE body event by event, yielding the JSON of each non-empty `data:` field.
struct Events {
    stream: futures::stream::BoxStream<'static, reqwest::Result<axum::body::Bytes>>,
    buffer: Vec<u8>,
}

impl Events {
    fn new(response: reqwest::Response) -> Self {
        assert_eq!(
            response.headers()["content-type"],
            "text/event-stream",
            "expected an SSE response"
        );
        Self {
            stream: response.bytes_stream().boxed(),
            buffer: Vec::new(),
        }
    }

    async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(end) = find(&self.buffer, b"\n\n") {
                let event: Vec<u8> = self.buffer.drain(..end + 2).collect();
                let data: String = String::from_utf8(event)
                    .unwrap()
                    .lines()
                    .filter_map(|line| line.strip_prefix("data:"))
                    .map(|data| data.strip_prefix(' ').unwrap_or(data))
                    .collect::<Vec<_>>()
                    .join("\n");
                if data.is_empty() {
                    continue; // priming event or keep-alive
                }
                return Some(serde_json::from_str(&data).expect("SSE data is JSON"));
            }
            match tokio::time::timeout(WAIT, self.stream.next())
                .await
                .expect("an SSE event arrived in time")
            {
                Some(chunk) => self.buffer.extend_from_slice(&chunk.unwrap()),
                None => return None,
            }
        }
    }

    /// The next event that is a response (has an id and no method).
    async fn response(&mut self) -> Value {
        loop {
            let event = self.next().await.expect("stream ended before the response");
            if event.get("id").is_some() && event.get("method").is_none() {
                return event;
            }
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn modern_meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "wire-test", "version": "1"},
    })
}

fn text_of(response: &Value) -> &str {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text content in {response}"))
}

#[tokio::test]
async fn legacy_http_session_get_stream_and_server_requests() {
    let server = Server::start().await;
    let init = server
        .post(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {"form": {}}},
            "clientInfo": {"name": "wire-test", "version": "1"}}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(init.status(), 200);
    let session = init.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let init = Events::new(init).response().await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(
        init["result"]["capabilities"]["tasks"]["requests"]["tools"]["call"],
        json!({})
    );

    let legacy = |body: Value| {
        server
            .post(&body)
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-11-25")
    };
    let initialized = legacy(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .send()
        .await
        .unwrap();
    assert_eq!(initialized.status(), 202);

    // Without a session id a legacy request is refused.
    let no_session = server
        .post(&json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}))
        .send()
        .await
        .unwrap();
    assert_eq!(no_session.status(), 400);

    let list = legacy(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .send()
        .await
        .unwrap();
    let list = Events::new(list).response().await;
    let research = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "research")
        .unwrap()
        .clone();
    assert_eq!(research["execution"]["taskSupport"], "optional");

    // The standalone GET stream receives unsolicited notifications.
    let get = server
        .http
        .get(&server.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), 200);
    let mut standalone = Events::new(get);
    let toggle = legacy(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "toggle-extra-tool"}}))
    .send()
    .await
    .unwrap();
    assert!(text_of(&Events::new(toggle).response().await).starts_with("extra-tool added"));
    let changed = standalone.next().await.unwrap();
    assert_eq!(changed["method"], "notifications/tools/list_changed");

    // Elicitation: the server's request rides the POST's stream; the answer is its own POST.
    let call = legacy(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "elicit-form"}}))
    .send()
    .await
    .unwrap();
    let mut events = Events::new(call);
    let request = events.next().await.unwrap();
    assert_eq!(request["method"], "elicitation/create");
    let answer = legacy(json!({"jsonrpc": "2.0", "id": request["id"],
        "result": {"action": "cancel"}}))
    .send()
    .await
    .unwrap();
    assert_eq!(answer.status(), 202);
    let result = events.response().await;
    assert_eq!(result["id"], 4);
    assert!(text_of(&result).starts_with("action: cancel"));

    // Legacy core tasks over HTTP.
    let created = legacy(json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "research", "arguments": {"topic": "owls"}, "task": {}}}))
    .send()
    .await
    .unwrap();
    let created = Events::new(created).response().await;
    assert_eq!(created["result"]["task"]["status"], "working");
    let id = created["result"]["task"]["taskId"].clone();
    let cancel = legacy(json!({"jsonrpc": "2.0", "id": 6, "method": "tasks/cancel",
        "params": {"taskId": id}}))
    .send()
    .await
    .unwrap();
    let cancel = Events::new(cancel).response().await;
    assert_eq!(cancel["result"]["status"], "cancelled");

    let delete = server
        .http
        .delete(&server.url)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert!(delete.status().is_success());
    server.shutdown().await;
}

#[tokio::test]
async fn modern_http_headers_input_required_and_errors() {
    let server = Server::start().await;
    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
        "params": {"_meta": modern_meta(json!({}))}});
    let response = server.modern(&discover).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        response.headers().get("mcp-session-id").is_none(),
        "modern is stateless"
    );
    let discovered = Events::new(response).response().await;
    assert!(
        discovered["result"]["supportedVersions"]
            .as_array()
            .unwrap()
            .contains(&json!("2026-07-28"))
    );

    // route-query: x-mcp-header parameters arrive as Mcp-Param-* headers, validated by rmcp.
    let route = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "route-query",
        "arguments": {"region": "eu-west", "priority": 3, "dryRun": true, "query": "select 1"},
        "_meta": modern_meta(json!({}))}});
    let response = server
        .modern(&route)
        .header("mcp-param-region", "eu-west")
        .header("mcp-param-priority", "3")
        .header("mcp-param-dry-run", "true")
        .send()
        .await
        .unwrap();
    let echoed = Events::new(response).response().await;
    let report: Value = serde_json::from_str(text_of(&echoed)).unwrap();
    assert_eq!(report["transport"], "http");
    assert_eq!(report["received"]["query"], "select 1");
    assert_eq!(report["mcpParamHeaders"]["mcp-param-region"], "eu-west");
    assert_eq!(report["mcpParamHeaders"]["mcp-param-dry-run"], "true");

    let missing_header = server.modern(&route).send().await.unwrap();
    assert_eq!(missing_header.status(), 400);
    let body: Value = serde_json::from_slice(&missing_header.bytes().await.unwrap()).unwrap();
    assert_eq!(body["error"]["code"], -32020);

    let wrong_version = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "echo", "arguments": {"message": "x"},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "1999-01-01",
                  "io.modelcontextprotocol/clientCapabilities": {}}}});
    let response = server
        .post(&wrong_version)
        .header("mcp-protocol-version", "1999-01-01")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "echo")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let body: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
    assert_eq!(body["error"]["code"], -32022);

    // elicit-form: input_required, then the retry with inputResponses and requestState.
    let caps = json!({"elicitation": {"form": {}}});
    let ask = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
        "name": "elicit-form", "_meta": modern_meta(caps.clone())}});
    let first = Events::new(server.modern(&ask).send().await.unwrap())
        .response()
        .await;
    assert_eq!(first["result"]["resultType"], "input_required");
    let state = first["result"]["requestState"].clone();
    let retry = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
        "name": "elicit-form",
        "inputResponses": {"answer": {"action": "accept", "content": {"name": "Grace", "email": "g@h.i"}}},
        "requestState": state,
        "_meta": modern_meta(caps)}});
    let done = Events::new(server.modern(&retry).send().await.unwrap())
        .response()
        .await;
    assert_eq!(done["result"]["resultType"], "complete");
    assert!(text_of(&done).contains("Grace"));

    // Progress rides the request's own stream.
    let slow = json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {
        "name": "slow", "arguments": {"durationMs": 200, "steps": 2},
        "_meta": {"progressToken": "s", "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}});
    let mut events = Events::new(server.modern(&slow).send().await.unwrap());
    let progress = events.next().await.unwrap();
    assert_eq!(progress["method"], "notifications/progress");
    assert_eq!(progress["params"]["message"], "step 1 of 2");
    assert_eq!(text_of(&events.response().await), "done after 2 steps");

    // A modern client never opens the GET stream.
    let get = server
        .http
        .get(&server.url)
        .header("accept", "text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), 405);
    server.shutdown().await;
}

#[tokio::test]
async fn modern_http_listen_stream_and_loopback_guards() {
    let server = Server::start().await;
    let listen = json!({"jsonrpc": "2.0", "id": "sub-1", "method": "subscriptions/listen", "params": {
        "_meta": modern_meta(json!({})),
        "notifications": {"toolsListChanged": true, "resourceSubscriptions": ["demo://counter"]}}});
    let mut stream = Events::new(server.modern(&listen).send().await.unwrap());
    let ack = stream.next().await.unwrap();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub-1"
    );

    let toggle = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "toggle-extra-tool", "_meta": modern_meta(json!({}))}});
    Events::new(server.modern(&toggle).send().await.unwrap())
        .response()
        .await;
    let mut saw_tools = false;
    let mut saw_counter = false;
    while !(saw_tools && saw_counter) {
        let event = stream.next().await.unwrap();
        assert_eq!(
            event["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            "sub-1"
        );
        match event["method"].as_str().unwrap() {
            "notifications/tools/list_changed" => saw_tools = true,
            "notifications/resources/updated" => {
                assert_eq!(event["params"]["uri"], "demo://counter");
                saw_counter = true;
            }
            other => panic!("unexpected {other}"),
        }
    }
    drop(stream);

    let evil_origin = server
        .post(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(evil_origin.status(), 403);
    let big = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "big", "arguments": {"bytes": 2_000_000}, "_meta": modern_meta(json!({}))}});
    let big = Events::new(server.modern(&big).send().await.unwrap())
        .response()
        .await;
    assert_eq!(text_of(&big).len(), 2_000_000);
    server.shutdown().await;
}

/// Reads raw SSE events (event name, data) from a response body.
async fn raw_event(
    stream: &mut futures::stream::BoxStream<'static, reqwest::Result<axum::body::Bytes>>,
    buffer: &mut Vec<u8>,
) -> Option<(String, String)> {
    loop {
        if let Some(end) = find(buffer, b"\n\n") {
            let event: Vec<u8> = buffer.drain(..end + 2).collect();
            let text = String::from_utf8(event).unwrap();
            let field = |name: &str| {
                text.lines()
                    .filter_map(|line| line.strip_prefix(name))
                    .map(|v| v.strip_prefix(' ').unwrap_or(v))
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            return Some((field("event:"), field("data:")));
        }
        match tokio::time::timeout(WAIT, stream.next())
            .await
            .expect("an SSE event arrived in time")
        {
            Some(chunk) => buffer.extend_from_slice(&chunk.unwrap()),
            None => return None,
        }
    }
}

#[tokio::test]
async fn legacy_http_sse_transport_endpoint_messages_and_guards() {
    let server = Server::start().await;
    let base = server.url.trim_end_matches("/mcp").to_owned();
    let open = server
        .http
        .get(format!("{base}/sse"))
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(open.status(), 200);
    assert_eq!(open.headers()["content-type"], "text/event-stream");
    let mut stream = open.bytes_stream().boxed();
    let mut buffer = Vec::new();
    let (event, endpoint) = raw_event(&mut stream, &mut buffer).await.unwrap();
    assert_eq!(event, "endpoint");
    assert!(endpoint.starts_with("/message?sessionId="), "{endpoint}");
    let post = |body: &str| {
        server
            .http
            .post(format!("{base}{endpoint}"))
            .header("content-type", "application/json")
            .body(body.to_owned())
    };

    // A pretty-printed message (line breaks between tokens) is still one message.
    let initialize = serde_json::to_string_pretty(&json!({"jsonrpc": "2.0", "id": 1,
        "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "wire-test", "version": "1"}}}))
    .unwrap();
    assert_eq!(post(&initialize).send().await.unwrap().status(), 202);
    let (event, data) = raw_event(&mut stream, &mut buffer).await.unwrap();
    assert_eq!(event, "message");
    let answer: Value = serde_json::from_str(&data).unwrap();
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["result"]["protocolVersion"], "2025-11-25");
    // The legacy tasks shim runs on this transport too.
    assert!(
        answer["result"]["capabilities"]["tasks"].is_object(),
        "{answer}"
    );
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert_eq!(post(initialized).send().await.unwrap().status(), 202);
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"over sse"}}}"#;
    assert_eq!(post(call).send().await.unwrap().status(), 202);
    let (_, data) = raw_event(&mut stream, &mut buffer).await.unwrap();
    let answer: Value = serde_json::from_str(&data).unwrap();
    assert_eq!(text_of(&answer), "Echo: over sse");

    assert_eq!(post("{not json").send().await.unwrap().status(), 400);
    let unknown = server
        .http
        .post(format!("{base}/message?sessionId=nope"))
        .body(initialized)
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
    let missing = server
        .http
        .post(format!("{base}/message"))
        .body(initialized)
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 400);
    for (name, value) in [("origin", "https://evil.example"), ("host", "evil.example")] {
        let refused = server
            .http
            .get(format!("{base}/sse"))
            .header(name, value)
            .send()
            .await
            .unwrap();
        assert_eq!(refused.status(), 403, "{name}: {value}");
    }

    // Hanging up ends the session: its endpoint stops accepting messages.
    drop(stream);
    let mut gone = false;
    for _ in 0..50 {
        if post(initialized).send().await.unwrap().status() == 404 {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(gone, "the session outlived its stream");
    server.shutdown().await;
}
