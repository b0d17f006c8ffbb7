"""A test peer that breaks one rule: it serves `prompts/list` (one prompt, `hello`) but does not
declare the `prompts` capability — in 2025-11-25's `initialize` result nor in 2026-07-28's
`server/discover`. "Servers that support prompts MUST declare the prompts capability" (both
revisions, server/prompts); the official suite's `sep-2575-server-declares-prompts-in-discover`
and `mcpscope check`'s `undeclared-capability-error` both fail it
(crates/mcpscope/tests/check_agreement.rs). Otherwise a small correct server on the Python SDK's
low-level `Server` (`mcp==2.3.0`), both eras: one resource, testenv://readme.

Run through testenv/peers/python-undeclared-prompts-server.sh MODE PORT (see _serve.py).
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

import _serve

README_URI = "testenv://readme"


class PromptsUndeclared(Server):
    """The SDK declares a capability for each handler it has; this one leaves `prompts` out."""

    def get_capabilities(self, *args: Any, **kwargs: Any) -> types.ServerCapabilities:
        return super().get_capabilities(*args, **kwargs).model_copy(update={"prompts": None})


def refuse_cursor(params) -> None:
    # One page each: a cursor this server never handed out is refused, as the pagination page asks.
    if params is not None and params.cursor is not None:
        raise MCPError(code=-32602, message=f"invalid cursor {params.cursor}")


async def list_resources(ctx, params) -> types.ListResourcesResult:
    refuse_cursor(params)
    return types.ListResourcesResult(resources=[types.Resource(uri=README_URI, name="readme", mime_type="text/plain")])


async def list_templates(ctx, params) -> types.ListResourceTemplatesResult:
    return types.ListResourceTemplatesResult(resource_templates=[])


async def read_resource(ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
    uri = str(params.uri)
    if uri != README_URI:
        raise MCPError(code=-32602, message=f"unknown resource {uri}", data={"uri": uri})
    return types.ReadResourceResult(
        contents=[types.TextResourceContents(uri=uri, mime_type="text/plain", text="Hello from the undeclared-prompts peer.")]
    )


async def list_prompts(ctx, params) -> types.ListPromptsResult:
    refuse_cursor(params)
    return types.ListPromptsResult(prompts=[types.Prompt(name="hello", description="Say hello.")])


async def get_prompt(ctx, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    return types.GetPromptResult(
        messages=[types.PromptMessage(role="user", content=types.TextContent(type="text", text="Say hello."))]
    )


server = PromptsUndeclared(
    "mcpscope-python-undeclared-prompts-peer",
    version="2.3.0-peer",
    on_list_resources=list_resources,
    on_list_resource_templates=list_templates,
    on_read_resource=read_resource,
    on_list_prompts=list_prompts,
    on_get_prompt=get_prompt,
)


async def run_stdio() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    _serve.main(
        "undeclared_prompts_server.py",
        stdio=run_stdio,
        http_app=lambda stateless, json: server.streamable_http_app(stateless_http=stateless, json_response=json),
        sse_app=None,
    )
