"""A test peer on the official Python SDK's low-level server, `mcp.server.lowlevel.Server`
(`mcp==2.3.0`): every handler written by hand, as a server that wants full control does.

Both eras on every transport (the SDK decides per connection from the first request). The
interactive tools ask in the era's own way, by hand: a server→client request on the legacy
connection (`ctx.session.send_request`), and on a 2026-07-28 one an `InputRequiredResult` whose
retry carries the answer in `inputResponses` and our `requestState` (`<tool>-round-1`).

Offers the same as sdk_server.py, with URL-mode elicitation in both eras:
  tools      echo(text); add(a, b) (outputSchema, structuredContent {"sum"}); slow(seconds)
             (progress 1/2 and an info log, then sleep; `cancelled <id>` on stderr);
             ask_name (form elicitation, default "World"); open_url (URL elicitation);
             sample (sampling/createMessage); roots (roots/list)
  resources  testenv://readme; template testenv://greeting/{name}
  prompts    hello(name)
  completion argument name of prompt hello / template greeting, from Ada, Alan, Bo
  logging    logging/setLevel

Run through testenv/peers/python-lowlevel-server.sh MODE PORT (see _serve.py for the modes).
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

import _serve

NAMES = ["Ada", "Alan", "Bo"]
README = "Hello from the Python SDK low-level test peer."
NAME_SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string", "default": "World"}},
    "required": ["name"],
}

TOOLS = [
    types.Tool(
        name="echo",
        description="Echo the text back.",
        input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    ),
    types.Tool(
        name="add",
        description="Add two integers; the sum is also structured content.",
        input_schema={
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        },
        output_schema={"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]},
    ),
    types.Tool(
        name="slow",
        description="Report progress and log, then sleep (to be cancelled).",
        input_schema={"type": "object", "properties": {"seconds": {"type": "number"}}},
    ),
    *(
        types.Tool(name=name, description=description, input_schema={"type": "object"})
        for name, description in [
            ("ask_name", "Ask the user's name (elicitation, form mode)."),
            ("open_url", "Ask the user to open a URL (elicitation, URL mode)."),
            ("sample", "Ask the client's model to say something (sampling)."),
            ("roots", "List the client's roots."),
        ]
    ),
]

# What each interactive tool asks, as the request the SDK would send.
QUESTIONS: dict[str, tuple[Any, type]] = {
    "ask_name": (
        types.ElicitRequest(params=types.ElicitRequestFormParams(message="What is your name?", requested_schema=NAME_SCHEMA)),
        types.ElicitResult,
    ),
    "open_url": (
        types.ElicitRequest(
            params=types.ElicitRequestURLParams(
                message="Please open the page.", url="https://example.com/consent", elicitation_id="consent-1"
            )
        ),
        types.ElicitResult,
    ),
    "sample": (
        types.CreateMessageRequest(
            params=types.CreateMessageRequestParams(
                messages=[types.SamplingMessage(role="user", content=types.TextContent(type="text", text="Say something."))],
                max_tokens=50,
            )
        ),
        types.CreateMessageResult,
    ),
    "roots": (types.ListRootsRequest(), types.ListRootsResult),
}


def text(value: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=value)])


def answer_text(tool: str, answer: Any) -> str:
    """What an interactive tool says once it has its answer."""
    if tool == "ask_name":
        if answer.action == "accept" and answer.content:
            return f"Hello, {answer.content.get('name')}!"
        return "Hello, stranger."
    if tool == "open_url":
        return f"url elicitation: {answer.action}"
    if tool == "sample":
        content = answer.content
        return f"sampled: {content.text if isinstance(content, types.TextContent) else content}"
    return "roots: " + ",".join(str(root.uri) for root in answer.roots)


async def ask(ctx, tool: str, params: types.CallToolRequestParams) -> types.CallToolResult | types.InputRequiredResult:
    request, result_type = QUESTIONS[tool]
    if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        answer = await ctx.session.send_request(request, result_type, metadata=_related(ctx))
        return text(answer_text(tool, answer))
    responses = params.input_responses or {}
    if tool not in responses:
        # Round one: ask; the retry brings the answer under the same key, and our state back.
        return types.InputRequiredResult(input_requests={tool: request}, request_state=f"{tool}-round-1")
    assert params.request_state == f"{tool}-round-1", params.request_state
    return text(answer_text(tool, result_type.model_validate(responses[tool].model_dump(by_alias=True))))


def _related(ctx):
    from mcp.shared.message import ServerMessageMetadata

    return ServerMessageMetadata(related_request_id=ctx.request_id)


async def slow(ctx, arguments: dict[str, Any]) -> types.CallToolResult:
    await ctx.session.report_progress(1, 2, "started")
    await ctx.session.send_log_message("info", "slow started", related_request_id=ctx.request_id)
    try:
        await anyio.sleep(float(arguments.get("seconds", 60)))
    except anyio.get_cancelled_exc_class():
        _serve.ack(f"cancelled {ctx.request_id}")
        raise
    return text("slept")


async def call_tool(ctx, params: types.CallToolRequestParams):
    arguments = params.arguments or {}
    if params.name == "echo":
        return text(str(arguments.get("text", "")))
    if params.name == "add":
        total = int(arguments["a"]) + int(arguments["b"])
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=str(total))], structured_content={"sum": total}
        )
    if params.name == "slow":
        return await slow(ctx, arguments)
    if params.name in QUESTIONS:
        return await ask(ctx, params.name, params)
    return types.CallToolResult(content=[types.TextContent(type="text", text=f"unknown tool {params.name}")], is_error=True)


async def list_tools(ctx, params) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def list_resources(ctx, params) -> types.ListResourcesResult:
    return types.ListResourcesResult(
        resources=[types.Resource(uri="testenv://readme", name="readme", mime_type="text/plain")]
    )


async def list_templates(ctx, params) -> types.ListResourceTemplatesResult:
    return types.ListResourceTemplatesResult(
        resource_templates=[
            types.ResourceTemplate(uri_template="testenv://greeting/{name}", name="greeting", mime_type="text/plain")
        ]
    )


async def read_resource(ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
    uri = str(params.uri)
    if uri == "testenv://readme":
        body = README
    elif uri.startswith("testenv://greeting/"):
        body = f"Greetings, {uri.removeprefix('testenv://greeting/')}."
    else:
        from mcp.shared.exceptions import MCPError

        raise MCPError(code=-32602, message=f"unknown resource {uri}")
    return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, mime_type="text/plain", text=body)])


async def list_prompts(ctx, params) -> types.ListPromptsResult:
    return types.ListPromptsResult(
        prompts=[
            types.Prompt(
                name="hello",
                description="Say hello to someone.",
                arguments=[types.PromptArgument(name="name", required=True)],
            )
        ]
    )


async def get_prompt(ctx, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    name = (params.arguments or {}).get("name", "nobody")
    return types.GetPromptResult(
        messages=[types.PromptMessage(role="user", content=types.TextContent(type="text", text=f"Say hello to {name}."))]
    )


async def complete(ctx, params: types.CompleteRequestParams) -> types.CompleteResult:
    prefix = params.argument.value.lower()
    values = [n for n in NAMES if n.lower().startswith(prefix)]
    return types.CompleteResult(completion=types.Completion(values=values, total=len(values), has_more=False))


async def set_level(ctx, params: types.SetLevelRequestParams) -> types.EmptyResult:
    _serve.say("lowlevel-server", "log level", params.level)
    return types.EmptyResult()


server = Server(
    "mcpscope-python-lowlevel-peer",
    version="2.3.0-peer",
    on_list_tools=list_tools,
    on_call_tool=call_tool,
    on_list_resources=list_resources,
    on_list_resource_templates=list_templates,
    on_read_resource=read_resource,
    on_list_prompts=list_prompts,
    on_get_prompt=get_prompt,
    on_completion=complete,
    on_set_logging_level=set_level,
)


async def run_stdio() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def sse_app():
    """HTTP+SSE as MCPServer.sse_app builds it (the low-level server has no app of its own)."""
    from starlette.applications import Starlette
    from starlette.responses import Response
    from starlette.routing import Mount, Route

    from mcp.server.sse import SseServerTransport

    sse = SseServerTransport("/messages/")

    async def handle_sse(request):
        async with sse.connect_sse(request.scope, request.receive, request._send) as (read, write):
            await server.run(read, write, server.create_initialization_options())
        return Response()

    return Starlette(
        routes=[Route("/sse", endpoint=handle_sse, methods=["GET"]), Mount("/messages/", app=sse.handle_post_message)]
    )


if __name__ == "__main__":
    _serve.main(
        "lowlevel_server.py",
        stdio=run_stdio,
        http_app=lambda stateless, json: server.streamable_http_app(stateless_http=stateless, json_response=json),
        sse_app=sse_app,
    )
