"""An MCP server on FastMCP protected by FastMCP's own in-memory OAuth authorization server.

    python oauth_fastmcp.py http PORT      # http://127.0.0.1:PORT/mcp ; PORT 0 = pick one

`fastmcp==4.2.3` ships `InMemoryOAuthProvider` ("simulates the OAuth 2.1 flow locally without
external calls"): RFC 8414 and RFC 9728 metadata, RFC 7591 registration, /authorize, /token and
/revoke, all built by FastMCP on the Python SDK's routes. Its /authorize approves at once and
redirects straight back to the client's redirect URI with the code, so a test approves "as a
browser would" by fetching the authorization URL and following the redirect. Every other
FastMCP provider (the OAuth proxy, OIDC proxy, GitHub, Google, Auth0, WorkOS, ...) needs an
outside identity provider.

Tools: `echo` (text) and `whoami` (the client id and scopes of the token the call carried).
Once listening it prints `mcpscope-testenv: listening on http://127.0.0.1:PORT/mcp (pid N)` on
stderr.
"""

import asyncio
import os
import socket
import sys

import uvicorn
from fastmcp import FastMCP
from fastmcp.server.auth.auth import ClientRegistrationOptions, RevocationOptions
from fastmcp.server.auth.providers.in_memory import InMemoryOAuthProvider
from fastmcp.server.dependencies import get_access_token

SCOPES = ["mcp:read", "mcp:write"]


def build(base: str):
    auth = InMemoryOAuthProvider(
        base_url=base,
        client_registration_options=ClientRegistrationOptions(enabled=True, valid_scopes=SCOPES),
        revocation_options=RevocationOptions(enabled=True),
        required_scopes=["mcp:read"],
    )
    server = FastMCP(name="mcpscope-testenv-fastmcp-oauth", auth=auth)

    @server.tool
    def echo(text: str) -> str:
        """Echo the text back."""
        return text

    @server.tool
    def whoami() -> str:
        """The client and scopes of the access token this call carried."""
        t = get_access_token()
        return f"client {t.client_id} scopes {' '.join(t.scopes)}" if t else "anonymous"

    return server.http_app(path="/mcp")


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "http"
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    if mode != "http":
        sys.exit(f"usage: oauth_fastmcp.py http PORT (not {mode!r})")
    # The issuer URL must name the port, so the socket is bound before the app is built.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    app = build(base)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    print(f"mcpscope-testenv: listening on {base}/mcp (pid {os.getpid()})", file=sys.stderr, flush=True)
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


if __name__ == "__main__":
    main()
