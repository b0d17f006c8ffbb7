"""A stand-in MCP gateway for the gateway mode's tests (issue 25, docs/gateway.md), built on
code this project did not write: FastMCP 4.2.3's `mount(server, namespace=...)` composes two
backends behind one `/mcp`, and the Python SDK underneath it (`mcp==2.3.0`) serves the wire.

The two backends are 002's demo table (`../shared/seeds/002_*`, "Demo servers"):

  backend    prefix       tool                                       prompt
  toystore   toystore_    toystore_greet(Name) -> "Hi Ada"           toystore_greet, no arguments -> "Say hi to"
  stateless  stateless_   stateless_hello_world(Name) -> "Hello, Ada!"  stateless_greeting(Name) -> "Please greet Ada warmly"

Flags (run it through testenv/peers/gateway-standin.sh, which picks the peers' venv):

  --era legacy|modern|both  2025-11-25 only (stateful: Mcp-Session-Id issued), 2026-07-28 only
                            (stateless: server/discover, no session), or both (the SDK's own
                            dual-era serving, for the protocol selector's Auto). Default both.
  --json-response           JSON responses instead of request-scoped SSE streams.
  --tls-cert PEM --tls-key PEM   serve HTTPS (uvicorn's ssl arguments).
  --bearer TOKEN            every request needs `Authorization: Bearer TOKEN`, else 401 with
                            `WWW-Authenticate: Bearer ...` (what an auth policy in front of a
                            gateway answers).
  --session-ttl SECONDS     a legacy session idle this long is closed by the SDK, and its id then
                            answers 404 (the spec's "expired session"). `POST /standin/expire`
                            (not MCP; tests call it directly) expires every session at once.
  --no-prompts              the backends declare no prompts.
  --header-tools            adds tools whose inputSchema carries `x-mcp-header` annotations
                            (off by default, so the demo table's counts stay as they are):
                            toystore_send_gift, four valid ones (a string, a string a client must
                            Base64-encode, an integer, a boolean); and three a client MUST
                            exclude (docs/gateway.md, the wire reference's x-mcp-header rules):
                            toystore_engrave (a name that is not an RFC 9110 token),
                            stateless_hello_twice (a name used twice, case-insensitively),
                            stateless_hello_weighted (on a `number` property).
  --input-required-tool     adds toystore_reserve, which answers its first call at 2026-07-28
                            with `resultType: "input_required"` (FastMCP's own multi-round-trip
                            guard: the tool returns an InputRequiredResult, the SDK seals its
                            requestState) and completes when retried with that state.
  --host H --port P         where to listen (default 127.0.0.1, port 0 = a free one).
  --record FILE             one JSON line per HTTP request received: method, path, query,
                            headers (as received, in order), body (text), before any check.

Once listening it prints one line on stdout, `listening on http(s)://HOST:PORT/mcp`, so a test
can start it on port 0 and read the port.

Why each piece sits where it does: everything MCP is the SDK's and FastMCP's; what a gateway in
front of servers adds (authentication, the era it speaks, recording) is a small ASGI layer
around their app, so the tests meet the SDKs' own answers wherever the protocol is concerned.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Annotated, Any

# Before fastmcp is imported: no banner, no rich logging on the stderr the tests read.
os.environ.setdefault("FASTMCP_SHOW_SERVER_BANNER", "false")
os.environ.setdefault("FASTMCP_LOG_LEVEL", "WARNING")

import anyio  # noqa: E402
import mcp_types  # noqa: E402
import uvicorn  # noqa: E402
from fastmcp import Context, FastMCP  # noqa: E402
from mcp.shared.inbound import (  # noqa: E402
    ERROR_CODE_HTTP_STATUS,
    MCP_PROTOCOL_VERSION_HEADER,
    unsupported_protocol_version_rejection,
)
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS  # noqa: E402
from pydantic import Field  # noqa: E402

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

# A recorded or inspected body is cut here: a test never sends more, and a runaway client must
# not grow the record file or this process without bound.
BODY_CAP = 4 * 1024 * 1024
# The path of the on-demand expiry (not MCP: the relay never forwards here).
EXPIRE_PATH = "/standin/expire"


# --- the backends (002's demo table) -------------------------------------------------------


def toystore(prompts: bool) -> FastMCP:
    """002's `test-server1`: greets by name; its prompt declares no arguments."""
    server = FastMCP("toystore", version="standin")

    @server.tool
    async def greet(Name: str, ctx: Context) -> str:  # noqa: N803 — the demo's argument is `Name`
        """Greet someone by name."""
        await progress(ctx)
        return f"Hi {Name}"

    if prompts:

        @server.prompt(name="greet")
        def greet_prompt() -> str:
            """A greeting prompt with no arguments."""
            return "Say hi to"

    return server


def stateless(prompts: bool) -> FastMCP:
    """002's `test-stateless-server`: hello world, and a prompt with a required `Name`."""
    server = FastMCP("stateless", version="standin")

    @server.tool
    async def hello_world(Name: str, ctx: Context) -> str:  # noqa: N803
        """Say hello to someone."""
        await progress(ctx)
        return f"Hello, {Name}!"

    if prompts:

        @server.prompt
        def greeting(Name: str) -> str:  # noqa: N803
            """Ask for a warm greeting."""
            return f"Please greet {Name} warmly"

    return server


async def progress(ctx: Context) -> None:
    """One progress notification when the caller asked for progress: the SDK then commits a
    modern (2026-07-28) response to SSE, so an SSE response can be met in both eras (without
    one it answers a quick call as JSON whatever the mode)."""
    await ctx.report_progress(1, 1, "greeting")


# --- the optional tools (off by default: the demo table's counts stay as they are) ----------


def mirrored(header_name: str) -> Any:
    """A property annotated `x-mcp-header: header_name`: a 2026-07-28 client mirrors the argument
    into `Mcp-Param-{header_name}`. FastMCP copies the annotation into the tool's inputSchema as
    it is and checks nothing, so an invalid one reaches the wire as a careless gateway's would."""
    return Field(json_schema_extra={"x-mcp-header": header_name})


def add_header_tools(toys: FastMCP, hello: FastMCP) -> None:
    """One tool whose annotations are all valid, and three a client MUST exclude, one per rule
    (the reason a client gives should name it)."""

    @toys.tool
    def send_gift(
        Recipient: Annotated[str, mirrored("Recipient")],  # noqa: N803 — the demo's capitalised names
        Card: Annotated[str, mirrored("Card-Text")],  # noqa: N803
        Quantity: Annotated[int, mirrored("Quantity")],  # noqa: N803
        Wrapped: Annotated[bool, mirrored("Gift-Wrap")],  # noqa: N803
        Note: str = "",  # noqa: N803 — not annotated: never a header
    ) -> str:
        """Send a gift; Recipient, Card, Quantity and Wrapped are mirrored into Mcp-Param-* headers
        (at 2026-07-28 the SDK checks them against these arguments, once a tools/list has filled
        FastMCP's schema cache: before that it lets any through)."""
        wrapping = "wrapped" if Wrapped else "not wrapped"
        return f"{Quantity} gift(s) for {Recipient}, {wrapping}, card: {Card}" + (f" ({Note})" if Note else "")

    @toys.tool
    def engrave(Text: Annotated[str, mirrored("Engraving Text")]) -> str:  # noqa: N803
        """Invalid x-mcp-header: a space is not allowed in a header name (RFC 9110 token)."""
        return f"Engraved {Text}"

    @hello.tool
    def hello_twice(
        First: Annotated[str, mirrored("Name")],  # noqa: N803
        Second: Annotated[str, mirrored("name")],  # noqa: N803
    ) -> str:
        """Invalid x-mcp-header: `Name` and `name` are one header (names are case-insensitive)."""
        return f"Hello, {First} and {Second}!"

    @hello.tool
    def hello_weighted(Name: str, Weight: Annotated[float, mirrored("Weight")]) -> str:  # noqa: N803
        """Invalid x-mcp-header: on a `number` property (only string, integer, boolean)."""
        return f"Hello, {Name} ({Weight})!"


def add_input_required_tool(toys: FastMCP) -> None:
    """A tool that needs a second round (SEP-2322 multi-round-trip, 2026-07-28 only), written the
    way FastMCP documents it: return an InputRequiredResult from the body; the SDK seals the
    requestState on the way out and unseals the client's echo before the next round runs."""

    @toys.tool
    async def reserve(Toy: str, ctx: Context) -> str | mcp_types.InputRequiredResult:  # noqa: N803
        """Reserve a toy: the first call answers input_required (asking for a confirmation when the
        client declared elicitation), the retry carrying the echoed requestState completes."""
        # A server MUST NOT send an input request the client declared no capability for;
        # without one the state alone is still a valid input_required result.
        asking = declared(ctx, "elicitation")
        answer = (ctx.input_responses or {}).get("confirm")
        if ctx.request_state is None or (asking and answer is None):
            return mcp_types.InputRequiredResult(
                input_requests={"confirm": confirmation(Toy)} if asking else None,
                request_state=json.dumps({"toy": Toy}),
            )
        if answer is not None and getattr(answer, "action", None) != "accept":
            return f"Not reserved: {Toy}"
        return f"Reserved {Toy}"


def confirmation(toy: str) -> mcp_types.ElicitRequest:
    """A form elicitation asking the user to confirm the reservation."""
    return mcp_types.ElicitRequest(
        params=mcp_types.ElicitRequestFormParams(
            message=f"Reserve {toy}?",
            requested_schema={"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
        )
    )


def declared(ctx: Context, capability: str) -> bool:
    """Whether this request's `_meta` declares the client capability `capability` (2026-07-28
    clients declare them per request)."""
    rc = ctx.request_context
    meta = getattr(rc, "meta", None) if rc is not None else None
    capabilities = meta.get(mcp_types.CLIENT_CAPABILITIES_META_KEY) if isinstance(meta, Mapping) else None
    return isinstance(capabilities, Mapping) and capability in capabilities


def gateway(prompts: bool, header_tools: bool = False, input_required_tool: bool = False) -> FastMCP:
    """The gateway: both backends mounted under their prefixes (FastMCP adds the `_`)."""
    toys, hello = toystore(prompts), stateless(prompts)
    if header_tools:
        add_header_tools(toys, hello)
    if input_required_tool:
        add_input_required_tool(toys)
    server = FastMCP("mcp-gateway-standin", version="standin")
    server.mount(toys, namespace="toystore")
    server.mount(hello, namespace="stateless")
    return server


# --- the ASGI layer a gateway adds ---------------------------------------------------------


async def read_body(receive: Receive) -> tuple[bytes, bool]:
    """The whole request body (up to BODY_CAP) and whether it was cut."""
    chunks, size, cut = [], 0, False
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        if size + len(chunk) > BODY_CAP:
            chunk, cut = chunk[: BODY_CAP - size], True
        chunks.append(chunk)
        size += len(chunk)
        if not message.get("more_body", False) or cut:
            break
    return b"".join(chunks), cut


def replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands the app the body already read, then the real channel (disconnects)."""
    sent = False

    async def again() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again


def header(scope: Scope, name: str) -> str | None:
    raw = name.encode("latin-1")
    return next((v.decode("latin-1") for k, v in scope["headers"] if k == raw), None)


async def send_json(send: Send, status: int, body: Any, extra: list[tuple[bytes, bytes]] = ()) -> None:
    data = json.dumps(body, separators=(",", ":")).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()), *extra]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


def jsonrpc_id(body: bytes) -> Any:
    try:
        message = json.loads(body)
    except ValueError:
        return None
    return message.get("id") if isinstance(message, dict) else None


def recorder(app: App, path: str) -> App:
    """Appends one JSON line per HTTP request to `path`, before anything can refuse it, so a
    test sees exactly what reached the gateway (the relay's stripped headers included)."""

    async def record(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        body, cut = await read_body(receive)
        line = {
            "time": time.time(),
            "method": scope["method"],
            "path": scope["path"],
            "query": scope.get("query_string", b"").decode("latin-1"),
            "headers": [[k.decode("latin-1"), v.decode("latin-1")] for k, v in scope["headers"]],
            "body": body.decode("utf-8", "replace"),
            "bodyCut": cut,
        }
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")
        await app(scope, replay(body, receive), send)

    return record


def bearer(app: App, token: str) -> App:
    """401 unless `Authorization: Bearer <token>`, as an auth policy in front of a gateway does."""
    want = f"Bearer {token}"

    async def check(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] == EXPIRE_PATH:
            await app(scope, receive, send)
            return
        got = header(scope, "authorization")
        if got == want:
            await app(scope, receive, send)
            return
        challenge = 'Bearer realm="mcp-gateway-standin"'
        if got is not None:
            challenge += ', error="invalid_token", error_description="The access token is not valid"'
        await send_json(
            send,
            401,
            {"error": "unauthorized", "message": "a valid bearer token is required"},
            [(b"www-authenticate", challenge.encode())],
        )

    return check


class Sessions:
    """Watches the legacy session ids the SDK issues, so `POST /standin/expire` can expire them
    all at once: an expired id is answered 404 here, exactly as the SDK answers an unknown one
    (and its DELETE too), without touching the SDK's private session table."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.issued: set[str] = set()
        self.expired: set[str] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"] == EXPIRE_PATH and scope["method"] == "POST":
            self.expired |= self.issued
            count, self.issued = len(self.issued), set()
            await send_json(send, 200, {"expired": count})
            return
        if (sid := header(scope, "mcp-session-id")) is not None and sid in self.expired:
            # The SDK's own words and shape for an unknown or expired session id.
            await send_json(send, 404, {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Session not found"}})
            return

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start":
                for k, v in message.get("headers", []):
                    if k.lower() == b"mcp-session-id" and len(self.issued) < 10_000:
                        self.issued.add(v.decode("latin-1"))
            await send(message)

        await self.app(scope, receive, watch)


def legacy_only(app: App) -> App:
    """A 2025-11-25 gateway: the SDK would route a request stamped with a 2026-07-28
    `MCP-Protocol-Version` to its modern entry, so that header is dropped and the SDK's
    session-based transport answers it as any 2025-11-25 server does (no session id yet: 400
    "Missing session ID"; `server/discover` inside a session: -32601)."""
    name = MCP_PROTOCOL_VERSION_HEADER.encode("ascii")

    async def gate(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            version = header(scope, MCP_PROTOCOL_VERSION_HEADER)
            if version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS:
                scope = dict(scope, headers=[(k, v) for k, v in scope["headers"] if k != name])
        await app(scope, receive, send)

    return gate


def modern_only(app: App) -> App:
    """A 2026-07-28 gateway: `initialize`, or a POST without a 2026-07-28
    `MCP-Protocol-Version`, gets the SDK's own UNSUPPORTED_PROTOCOL_VERSION rejection (naming
    the versions served) with its HTTP status, as its modern entry words it."""

    async def gate(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] == EXPIRE_PATH:
            await app(scope, receive, send)
            return
        body, _ = await read_body(receive)
        requested = header(scope, MCP_PROTOCOL_VERSION_HEADER) or ""
        try:
            message = json.loads(body)
        except ValueError:
            message = None
        if isinstance(message, dict) and message.get("method") == "initialize":
            params = message.get("params")
            requested = (params.get("protocolVersion") if isinstance(params, dict) else None) or requested
            requested = str(requested) if requested else ""
        else:
            pass_through = unsupported_protocol_version_rejection(requested) is None
            if pass_through:
                await app(scope, replay(body, receive), send)
                return
        rejection = unsupported_protocol_version_rejection(requested or "2025-11-25")
        assert rejection is not None
        error = {"code": rejection.code, "message": rejection.message}
        if rejection.data is not None:
            error["data"] = rejection.data
        status = ERROR_CODE_HTTP_STATUS.get(rejection.code, 400)
        await send_json(send, status, {"jsonrpc": "2.0", "id": jsonrpc_id(body), "error": error})

    return gate


# --- start-up ------------------------------------------------------------------------------


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="A stand-in MCP gateway (two prefixed backends on /mcp).")
    parser.add_argument("--era", choices=["legacy", "modern", "both"], default="both")
    parser.add_argument("--json-response", action="store_true")
    parser.add_argument("--tls-cert")
    parser.add_argument("--tls-key")
    parser.add_argument("--bearer", metavar="TOKEN")
    parser.add_argument("--session-ttl", type=float, metavar="SECONDS")
    parser.add_argument("--no-prompts", action="store_true")
    parser.add_argument("--header-tools", action="store_true")
    parser.add_argument("--input-required-tool", action="store_true")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--record", metavar="FILE")
    args = parser.parse_args()
    if bool(args.tls_cert) != bool(args.tls_key):
        parser.error("--tls-cert and --tls-key go together")
    if args.session_ttl is not None and args.session_ttl <= 0:
        parser.error("--session-ttl must be a positive number of seconds")
    return args


def application(args: argparse.Namespace) -> App:
    mcp = gateway(
        prompts=not args.no_prompts,
        header_tools=args.header_tools,
        input_required_tool=args.input_required_tool,
    )
    app: App = mcp.http_app(
        path="/mcp",
        json_response=args.json_response,
        # Modern only: no sessions at all. Legacy and both: the SDK's session-based transport
        # (a 2026-07-28 request is stateless in the SDK either way).
        stateless_http=args.era == "modern",
        # A gateway behind an ingress or reached through a dial address sees Hosts other than
        # its bind address; checking them is the ingress's job, not the gateway's.
        host_origin_protection=False,
        session_idle_timeout=args.session_ttl if args.session_ttl is not None else "auto",
    )
    starlette = app
    if args.era == "legacy":
        app = legacy_only(app)
    elif args.era == "modern":
        app = modern_only(app)
    app = Sessions(app)
    if args.bearer:
        app = bearer(app, args.bearer)
    if args.record:
        app = recorder(app, args.record)
    return with_lifespan(app, starlette)


def with_lifespan(app: App, starlette: Any) -> App:
    """Lifespan events go to the Starlette app itself (it starts the SDK's session manager)."""

    async def serve(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await starlette(scope, receive, send)
        else:
            await app(scope, receive, send)

    return serve


def main() -> None:
    args = arguments()
    app = application(args)
    # Bound here and handed to uvicorn, so the printed port is the real one before the first
    # request can arrive.
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    sock.listen(128)
    sock.set_inheritable(True)
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=1,
        ssl_certfile=args.tls_cert,
        ssl_keyfile=args.tls_key,
    )
    server = uvicorn.Server(config)
    scheme = "https" if args.tls_cert else "http"
    host = f"[{args.host}]" if family == socket.AF_INET6 else args.host
    print(f"listening on {scheme}://{host}:{port}/mcp", flush=True)
    anyio.run(lambda: server.serve(sockets=[sock]))


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(130)
