"""A test peer that breaks one rule of 2026-07-28 (SEP-2164): `resources/read` of a URI it does
not have answers an empty `contents` array instead of an error, as a hand-written handler that
returns "whatever matched" does. Otherwise a small correct server on the Python SDK's low-level
`Server` (`mcp==2.3.0`), both eras: one resource, testenv://readme (text/plain).

2025-11-25 only recommends -32002 for a missing resource, so there the same answer breaks a SHOULD;
2026-07-28 says servers MUST NOT return an empty contents array for a non-existent resource. The
official suite's `sep-2164-resource-not-found` and `mcpscope check`'s `resource-not-found` both
fail it (crates/mcpscope/tests/check_agreement.rs).

Run through testenv/peers/python-empty-contents-server.sh MODE PORT (see _serve.py for the modes).
"""

from __future__ import annotations

import mcp_types as types

from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

import _serve

README_URI = "testenv://readme"


async def list_resources(ctx, params) -> types.ListResourcesResult:
    # One page: a cursor this server never handed out is refused, as the pagination page asks.
    if params is not None and params.cursor is not None:
        from mcp.shared.exceptions import MCPError

        raise MCPError(code=-32602, message=f"invalid cursor {params.cursor}")
    return types.ListResourcesResult(resources=[types.Resource(uri=README_URI, name="readme", mime_type="text/plain")])


async def list_templates(ctx, params) -> types.ListResourceTemplatesResult:
    return types.ListResourceTemplatesResult(resource_templates=[])


async def read_resource(ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
    uri = str(params.uri)
    # The flaw: nothing matched, so nothing is returned — no error.
    if uri != README_URI:
        return types.ReadResourceResult(contents=[])
    return types.ReadResourceResult(
        contents=[types.TextResourceContents(uri=uri, mime_type="text/plain", text="Hello from the empty-contents peer.")]
    )


server = Server(
    "mcpscope-python-empty-contents-peer",
    version="2.3.0-peer",
    on_list_resources=list_resources,
    on_list_resource_templates=list_templates,
    on_read_resource=read_resource,
)


async def run_stdio() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    _serve.main(
        "empty_contents_server.py",
        stdio=run_stdio,
        http_app=lambda stateless, json: server.streamable_http_app(stateless_http=stateless, json_response=json),
        sse_app=None,
    )
