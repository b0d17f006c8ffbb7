//! Answers that do not parse: nested deeper than the parser reads, or not UTF-8 (issue 24 item
//! 28). They used to be dropped with a warning while the request waited its whole timeout and
//! then said "without an answer"; now the request fails at once, naming the frame and why.
//!
//! The server is a real process: a few lines of Python that answer `initialize` properly and
//! then `tools/list` 200 levels deep and `tools/call` with a byte that is not UTF-8.

use crate::support::Keep;
use mcpscope_client::{ClientOptions, DeclineAll, Session};
use mcpscope_transport::Target;
use std::sync::Arc;
use std::time::{Duration, Instant};

const SERVER: &str = r#"
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    i = json.dumps(m["id"]).encode()
    if m["method"] == "initialize":
        r = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}},
             "serverInfo": {"name": "unreadable", "version": "1"}}
        out = json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}).encode()
    elif m["method"] == "tools/list":
        out = b'{"jsonrpc":"2.0","result":{"tools":[],"x":' + b"[" * 200 + b"]" * 200 + b'},"id":' + i + b"}"
    else:
        out = b'{"jsonrpc":"2.0","id":' + i + b',"result":{"content":[{"type":"text","text":"\xff\xfe"}]}}'
    sys.stdout.buffer.write(out + b"\n")
    sys.stdout.buffer.flush()
"#;

#[tokio::test]
async fn an_unreadable_answer_fails_its_request_at_once() {
    let keep = Arc::new(Keep::default());
    let target = Target::Stdio {
        command: "python3".into(),
        args: vec!["-c".into(), SERVER.into()],
        env: vec![],
        cwd: None,
    };
    let options = ClientOptions {
        request_timeout: Some(Duration::from_secs(30)),
        ..ClientOptions::default()
    };
    let session = Session::connect(target, options, Arc::new(DeclineAll), keep.clone())
        .await
        .unwrap_or_else(|e| panic!("connect: {e}\n{}", keep.dump()));
    for (method, params, why) in [
        ("tools/list", None, "nested deeper than the 128 levels"),
        (
            "tools/call",
            Some(serde_json::json!({"name": "x", "arguments": {}})),
            "not valid UTF-8",
        ),
    ] {
        let started = Instant::now();
        let err = session
            .request(method, params)
            .await
            .expect_err("an answer that does not parse is no result");
        let text = err.to_string();
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{method} waited {:?} for its timeout: {text}",
            started.elapsed()
        );
        assert!(
            text.contains("not a JSON-RPC message") && text.contains(why),
            "{method}: {text}\n{}",
            keep.dump()
        );
        assert!(text.contains("frame"), "names the frame: {text}");
    }
    session.close().await;
}
