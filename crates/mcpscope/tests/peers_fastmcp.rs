//! A server on FastMCP 4 (`fastmcp==4.2.3`, `testenv/peers/python/fastmcp_server.py`), through
//! the same grid as the Python SDK's peers (`peers_python.rs`): stdio, Streamable HTTP stateful
//! and stateless with SSE and JSON responses, HTTP+SSE, each in both eras.

use crate::peers_python::{Family, http_sse, stdio, streamable_http, streamable_http_variants};

#[tokio::test]
async fn fastmcp_over_stdio() {
    stdio(Family::FastMcp, "fastmcp_over_stdio").await;
}

#[tokio::test]
async fn fastmcp_over_streamable_http() {
    streamable_http(Family::FastMcp, "fastmcp_over_streamable_http").await;
}

#[tokio::test]
async fn fastmcp_over_stateless_and_json_http() {
    streamable_http_variants(Family::FastMcp, "fastmcp_over_stateless_and_json_http").await;
}

#[tokio::test]
async fn fastmcp_over_http_sse() {
    http_sse(Family::FastMcp, "fastmcp_over_http_sse").await;
}
