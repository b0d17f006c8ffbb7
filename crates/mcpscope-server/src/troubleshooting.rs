//! `GET /troubleshooting/{code}`: the troubleshooting page of each error code, served from the
//! binary so it opens without a network connection (a user at 2 a.m. may have none), linked from
//! the web UI's error cards and toasts as "View Troubleshooting Guide →".
//!
//! The pages are the Markdown files of `docs/troubleshooting/` (one per
//! [`ErrorCode`], compiled in: [`markdown`] matches every code, so a new code without a page is a
//! compile error), drawn as plain HTML by [`html`], which reads only the little Markdown those
//! pages use: headings, paragraphs, `-` lists, `code` and links between the pages. No script; the
//! page's CSP allows none.

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use mcpscope_proto::error_code::ErrorCode;

/// The page of `code`, as Markdown.
pub fn markdown(code: ErrorCode) -> &'static str {
    macro_rules! page {
        ($name:literal) => {
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../docs/troubleshooting/",
                $name,
                ".md"
            ))
        };
    }
    match code {
        ErrorCode::Usage => page!("usage"),
        ErrorCode::NotFound => page!("not_found"),
        ErrorCode::Unreachable => page!("unreachable"),
        ErrorCode::Timeout => page!("timeout"),
        ErrorCode::AuthRequired => page!("auth_required"),
        ErrorCode::RpcError => page!("rpc_error"),
        ErrorCode::ToolError => page!("tool_error"),
        ErrorCode::HandshakeRefused => page!("handshake_refused"),
        ErrorCode::Cancelled => page!("cancelled"),
        ErrorCode::Interrupted => page!("interrupted"),
        ErrorCode::ServerCancelled => page!("server_cancelled"),
        ErrorCode::InputRefused => page!("input_refused"),
        ErrorCode::InputRoundsExceeded => page!("input_rounds_exceeded"),
        ErrorCode::ProtocolError => page!("protocol_error"),
        ErrorCode::LintFailed => page!("lint_failed"),
        ErrorCode::SecretStore => page!("secret_store"),
        ErrorCode::OutputFailed => page!("output_failed"),
        ErrorCode::Conflict => page!("conflict"),
        ErrorCode::Unauthorized => page!("unauthorized"),
        ErrorCode::Forbidden => page!("forbidden"),
        ErrorCode::Internal => page!("internal"),
        ErrorCode::ToolNotVisible => page!("tool_not_visible"),
        ErrorCode::AppRefused => page!("app_refused"),
        ErrorCode::NoApp => page!("no_app"),
    }
}

/// The list of every page.
const INDEX: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../docs/troubleshooting/README.md"
));

/// No script, nothing loaded from anywhere: the page is text and links.
const CSP: &str =
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'";

/// `GET /troubleshooting`: every code.
pub(crate) async fn index() -> Response {
    page(StatusCode::OK, INDEX)
}

/// `GET /troubleshooting/{code}` (a trailing `.md`, as the files link each other, is taken too);
/// an unknown code is a 404 with the list.
pub(crate) async fn guide(Path(code): Path<String>) -> Response {
    let code = code.strip_suffix(".md").unwrap_or(&code);
    match code.parse::<ErrorCode>() {
        Ok(c) => page(StatusCode::OK, markdown(c)),
        Err(_) if code == "README" => page(StatusCode::OK, INDEX),
        Err(_) => page(StatusCode::NOT_FOUND, INDEX),
    }
}

fn page(status: StatusCode, md: &str) -> Response {
    let title = md.lines().next().unwrap_or("").trim_start_matches("# ");
    let body = format!(
        "<!doctype html><html><head><meta charset=utf-8><title>{} · mcpscope</title>\
         <style>body{{font:15px/1.5 system-ui,sans-serif;max-width:44em;margin:2em auto;padding:0 1em;color:#222}}\
         code{{background:#f1f1f1;padding:0 .25em;border-radius:3px}}</style></head><body>{}\
         <p><a href=\"/\">Open mcpscope</a></p></body></html>",
        escape(title),
        html(md)
    );
    (
        status,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CONTENT_SECURITY_POLICY, CSP),
        ],
        body,
    )
        .into_response()
}

fn escape(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The pages' Markdown as HTML: `#`/`##` headings, `- ` list items, paragraphs.
pub fn html(md: &str) -> String {
    let mut out = String::new();
    let mut in_list = false;
    for block in md.split("\n\n") {
        let block = block.trim();
        if block.is_empty() {
            continue;
        }
        for line in block.lines() {
            let item = line.strip_prefix("- ");
            if in_list && item.is_none() {
                out.push_str("</ul>");
                in_list = false;
            }
            if let Some(item) = item {
                if !in_list {
                    out.push_str("<ul>");
                    in_list = true;
                }
                out.push_str(&format!("<li>{}</li>", inline(item)));
            } else if let Some(h) = line.strip_prefix("## ") {
                out.push_str(&format!("<h2>{}</h2>", inline(h)));
            } else if let Some(h) = line.strip_prefix("# ") {
                out.push_str(&format!("<h1>{}</h1>", inline(h)));
            } else {
                out.push_str(&format!("<p>{}</p>", inline(line)));
            }
        }
        if in_list {
            out.push_str("</ul>");
            in_list = false;
        }
    }
    out
}

/// `code` spans and `[text](page.md)` links (to `/troubleshooting/page`), the rest escaped.
fn inline(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('`')
            && let Some(end) = after.find('`')
        {
            out.push_str(&format!("<code>{}</code>", escape(&after[..end])));
            rest = &after[end + 1..];
            continue;
        }
        if let Some(after) = rest.strip_prefix('[')
            && let Some((label, tail)) = after.split_once("](")
            && let Some((target, tail)) = tail.split_once(')')
            && !label.contains('[')
        {
            let href = target.strip_suffix(".md").unwrap_or(target);
            out.push_str(&format!(
                "<a href=\"/troubleshooting/{}\">{}</a>",
                escape(href),
                inline(label)
            ));
            rest = tail;
            continue;
        }
        let c = rest.chars().next().unwrap_or(' ');
        out.push_str(&escape(&c.to_string()));
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every code's page is its own (its heading names it), states the CLI exit code the code
    /// table gives, and is in the list; the folder holds no page of a code that does not exist.
    #[test]
    fn every_error_code_has_its_page() {
        for c in ErrorCode::ALL {
            let md = markdown(c);
            assert!(
                md.starts_with(&format!("# {}: ", c.code())),
                "{c:?}: {md:.60}"
            );
            assert!(
                md.contains(&format!("CLI exit code {}", c.exit_code())),
                "{c:?}: the page's exit code differs from the code table"
            );
            assert!(
                INDEX.contains(&format!("]({}.md)", c.code())),
                "{c:?} not in the list"
            );
        }
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/troubleshooting");
        for f in std::fs::read_dir(dir).unwrap() {
            let name = f.unwrap().file_name().into_string().unwrap();
            let stem = name.strip_suffix(".md").unwrap_or(&name);
            assert!(
                stem == "README" || stem.parse::<ErrorCode>().is_ok(),
                "{name}: no error code has this name"
            );
        }
    }

    #[test]
    fn markdown_is_drawn_escaped_with_its_code_and_links() {
        let h = html("# a: b\n\nSome `x<y` and [the list](README.md).\n\n- one\n- <two>\n");
        assert_eq!(
            h,
            "<h1>a: b</h1><p>Some <code>x&lt;y</code> and <a href=\"/troubleshooting/README\">the list</a>.</p>\
             <ul><li>one</li><li>&lt;two&gt;</li></ul>"
        );
    }
}
