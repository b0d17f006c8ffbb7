//! The smallest honest MCP client over Streamable HTTP, the yardstick of `bench/startup.py`:
//! std only, one keep-alive TCP connection, the same four requests as mcpscope's one-shot
//! `tools/list` and the curl script of `bench/run.py` (initialize, notifications/initialized,
//! tools/list, DELETE), the tools/list result printed on stdout. No timeouts, no recording, no
//! checks beyond what it takes to find the answers: it measures what the wire costs.
//!
//! Build: `rustc --edition 2024 -O bench/minimal_client.rs -o target/release/minimal-client`
//! (the benchmark does it). Run: `minimal-client http://127.0.0.1:PORT/mcp`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;

const VERSION: &str = "2025-11-25";

/// One HTTP/1.1 connection to the server.
struct Conn {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    host: String,
    path: String,
}

/// Status, headers (names lowercased) and the decoded body.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Conn {
    fn request(&mut self, method: &str, headers: &[(&str, &str)], body: &str) -> Answer {
        let mut head = format!(
            "{method} {} HTTP/1.1\r\nhost: {}\r\naccept: application/json, text/event-stream\r\n",
            self.path, self.host
        );
        if !body.is_empty() {
            head.push_str(&format!(
                "content-type: application/json\r\ncontent-length: {}\r\n",
                body.len()
            ));
        }
        for (k, v) in headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        head.push_str(body);
        self.writer.write_all(head.as_bytes()).expect("send");
        self.answer()
    }

    fn answer(&mut self) -> Answer {
        let mut line = String::new();
        self.reader.read_line(&mut line).expect("status line");
        let status = line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let mut headers = Vec::new();
        loop {
            line.clear();
            self.reader.read_line(&mut line).expect("header");
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            if let Some((k, v)) = l.split_once(':') {
                headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
            }
        }
        let get = |name: &str| {
            headers
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        };
        let body = if get("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
            self.chunked()
        } else if let Some(n) = get("content-length").and_then(|v| v.parse::<usize>().ok()) {
            let mut b = vec![0; n];
            self.reader.read_exact(&mut b).expect("body");
            b
        } else {
            let mut b = Vec::new();
            self.reader.read_to_end(&mut b).expect("body");
            b
        };
        Answer {
            status,
            headers,
            body,
        }
    }

    fn chunked(&mut self) -> Vec<u8> {
        let mut body = Vec::new();
        let mut line = String::new();
        loop {
            line.clear();
            self.reader.read_line(&mut line).expect("chunk size");
            let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or("0"), 16)
                .expect("chunk size is hex");
            let mut chunk = vec![0; size + 2];
            self.reader.read_exact(&mut chunk).expect("chunk");
            if size == 0 {
                return body;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    }
}

/// The JSON-RPC message with `"id":<id>` in a JSON body or an SSE body's `data:` lines.
fn message_with_id(body: &[u8], id: u32) -> Option<String> {
    let text = String::from_utf8_lossy(body);
    let needle = format!("\"id\":{id}");
    let candidates = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:").map(str::trim))
        .chain(std::iter::once(text.trim()));
    candidates
        .filter(|m| m.starts_with('{') && m.contains(&needle))
        .map(str::to_string)
        .next()
}

fn main() {
    let url = std::env::args()
        .nth(1)
        .expect("usage: minimal-client http://HOST:PORT/PATH");
    let rest = url.strip_prefix("http://").expect("an http:// URL");
    let (host, path) = match rest.split_once('/') {
        Some((h, p)) => (h.to_string(), format!("/{p}")),
        None => (rest.to_string(), "/".to_string()),
    };
    let stream = TcpStream::connect(&host).expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    let mut conn = Conn {
        reader: BufReader::new(stream.try_clone().expect("clone socket")),
        writer: stream,
        host,
        path,
    };
    let init = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"{VERSION}","capabilities":{{}},"clientInfo":{{"name":"minimal-client","version":"1"}}}}}}"#
    );
    let a = conn.request("POST", &[], &init);
    assert!(
        message_with_id(&a.body, 1).is_some(),
        "no initialize answer (HTTP {})",
        a.status
    );
    let sid = a
        .headers
        .iter()
        .find(|(k, _)| k == "mcp-session-id")
        .map(|(_, v)| v.clone())
        .unwrap_or_default();
    let session = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", VERSION),
    ];
    let session: &[(&str, &str)] = if sid.is_empty() {
        &session[1..]
    } else {
        &session
    };
    conn.request(
        "POST",
        session,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    let list = conn.request(
        "POST",
        session,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    );
    let answer = message_with_id(&list.body, 2).expect("no tools/list answer");
    if !sid.is_empty() {
        conn.request("DELETE", session, "");
    }
    println!("{answer}");
}
