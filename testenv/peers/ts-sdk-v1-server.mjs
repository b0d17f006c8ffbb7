// A legacy-era (2025-11-25) MCP server built on the official TypeScript SDK v1
// (@modelcontextprotocol/sdk 1.32.2, `McpServer`), over every transport SDK v1 offers. Node 22.
//
//   testenv/peers/ts-sdk-v1-server.sh stdio
//   testenv/peers/ts-sdk-v1-server.sh http PORT            # Streamable HTTP, stateful (Mcp-Session-Id), SSE responses
//   testenv/peers/ts-sdk-v1-server.sh http-stateless PORT  # Streamable HTTP, sessionIdGenerator undefined, SSE responses
//   testenv/peers/ts-sdk-v1-server.sh http-json PORT       # Streamable HTTP, stateful, enableJsonResponse: true
//   testenv/peers/ts-sdk-v1-server.sh sse PORT             # deprecated HTTP+SSE: GET /sse, POST /messages?sessionId=…
//
// Streamable HTTP modes serve http://127.0.0.1:PORT/mcp; `sse` serves http://127.0.0.1:PORT/sse.
// PORT 0 picks a free port. Once listening it prints
//   mcpscope-testenv: listening on http://127.0.0.1:PORT/mcp (pid N)     (no /mcp in sse mode)
// on stderr. SDK v1 knows only the legacy era (LATEST_PROTOCOL_VERSION 2025-11-25); a
// `server/discover` is answered -32601.
//
// Surface:
//   tools     echo {message}               -> text "Echo: <message>"
//             add {a, b}                   -> text "<a+b>" + structuredContent {sum} (outputSchema)
//             slow {steps=3, intervalMs=200} -> one notifications/progress (if the call has a
//                                             progressToken) and one info log per step, then
//                                             "slow: done after <steps> steps". A cancelled call
//                                             stops and prints `cancelled <requestId>` on stderr.
//             log-levels {}                -> one notifications/message at debug, info, warning and
//                                             error (logger "ts-sdk-v1"); the SDK drops those below
//                                             the session's logging/setLevel
//             ask-name {}                  -> elicitation/create (form: field `name`, default "World");
//                                             accept -> "Hello, <name>!", otherwise "Hello, stranger."
//             open-link {}                 -> elicitation/create (mode url); "url elicitation: <action>"
//             sample {prompt}              -> sampling/createMessage; "model said: <text>"
//             roots {}                     -> roots/list; "roots: <uri> <uri> …" (or "roots: none")
//   resources testenv://readme (text/plain); template testenv://items/{name} (list + completion
//             of `name` over alpha, beta, gamma)
//   prompts   hello {name}                 -> "Say hello to <name>." (`name` completes over
//                                             Ada, Alan, Grace)
//
// Server->client requests and notifications travel on the POST's own SSE stream (relatedRequestId)
// — except in http-json mode, where SDK v1 silently drops anything related to a request that is
// answered with plain JSON, so there they go unrelated, on the session's standalone GET stream
// (and `slow`/`log-levels` end with a ping there, so their notifications precede the result).

import { createRequire } from 'node:module';
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const peersDir = process.env.MCPSCOPE_PEERS_DIR || resolve(here, '..', '..', '.peers');
// The SDK lives in .peers/peers/node_modules, not next to this file: resolve it from there.
const require = createRequire(join(peersDir, 'peers', 'node_modules', '_'));
const { McpServer, ResourceTemplate } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { completable } = require('@modelcontextprotocol/sdk/server/completable.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
const { SSEServerTransport } = require('@modelcontextprotocol/sdk/server/sse.js');
const { isInitializeRequest } = require('@modelcontextprotocol/sdk/types.js');
// The package root (its `./*` export maps `package.json` into dist/, so find it from a module).
const sdkDir = resolve(dirname(require.resolve('@modelcontextprotocol/sdk/server/mcp.js')), '..', '..', '..');
const sdkRequire = createRequire(join(sdkDir, 'package.json'));
// The zod the SDK itself resolves (it accepts v3 and v4 schemas).
const { z } = sdkRequire('zod');

const SDK_VERSION = JSON.parse(readFileSync(join(sdkDir, 'package.json'), 'utf8')).version;
const SERVER_INFO = { name: 'mcpscope-testenv-ts-sdk-v1-server', version: SDK_VERSION };
const ITEMS = ['alpha', 'beta', 'gamma'];
const NAMES = ['Ada', 'Alan', 'Grace'];

const [mode, portArg] = process.argv.slice(2);

function log(...args) {
  if (process.env.MCPSCOPE_TS_SERVER_QUIET !== '1') console.error('[ts-sdk-v1-server]', ...args);
}

/** Options that keep a server->client message on the request's own stream (see the header). */
function related(extra) {
  return mode === 'http-json' ? {} : { relatedRequestId: extra.requestId };
}

/**
 * In http-json mode our notifications travel on the GET stream while the result goes back on the
 * POST, so a client could see the result first. A ping on the GET stream, answered only after the
 * client has read everything before it there, keeps the order: notifications, then the result.
 */
async function flush(server) {
  if (mode === 'http-json') await server.ping();
}

function text(t) {
  return { content: [{ type: 'text', text: t }] };
}

/** One McpServer per session (stdio, stateful HTTP, HTTP+SSE) or per request (stateless). */
function makeServer() {
  const server = new McpServer(SERVER_INFO, {
    capabilities: { logging: {} },
    instructions: 'mcpscope test peer (TypeScript SDK v1).',
  });
  const low = server.server;

  /** A notifications/message, honouring the session's logging/setLevel as the SDK does. */
  const notifyLog = async (extra, level, data) => {
    if (low.isMessageIgnored(level, extra.sessionId)) return;
    await low.notification({ method: 'notifications/message', params: { level, logger: 'ts-sdk-v1', data } }, related(extra));
  };

  server.registerTool(
    'echo',
    { title: 'Echo', description: 'Echoes the message back', inputSchema: { message: z.string().describe('Text to echo') } },
    async ({ message }) => text(`Echo: ${message}`),
  );

  server.registerTool(
    'add',
    {
      title: 'Add',
      description: 'Adds two numbers',
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() },
    },
    async ({ a, b }) => ({ ...text(String(a + b)), structuredContent: { sum: a + b } }),
  );

  server.registerTool(
    'slow',
    {
      title: 'Slow',
      description: 'Works in steps, reporting progress and logging each one; stops when cancelled',
      inputSchema: { steps: z.number().int().min(1).default(3), intervalMs: z.number().int().min(0).default(200) },
    },
    async ({ steps, intervalMs }, extra) => {
      const token = extra._meta?.progressToken;
      try {
        for (let step = 1; step <= steps; step++) {
          await sleep(intervalMs, undefined, { signal: extra.signal });
          if (token !== undefined) {
            await low.notification(
              { method: 'notifications/progress', params: { progressToken: token, progress: step, total: steps, message: `step ${step} of ${steps}` } },
              related(extra),
            );
          }
          await notifyLog(extra, 'info', `slow: step ${step} of ${steps}`);
        }
      } catch (e) {
        if (extra.signal.aborted) {
          // The wire-side proof for tests: the SDK aborted this handler on notifications/cancelled.
          console.error(`cancelled ${extra.requestId}`);
          throw e;
        }
        throw e;
      }
      await flush(low);
      return text(`slow: done after ${steps} steps`);
    },
  );

  server.registerTool(
    'log-levels',
    { title: 'Log levels', description: 'Logs one message at debug, info, warning and error', inputSchema: {} },
    async (_args, extra) => {
      for (const level of ['debug', 'info', 'warning', 'error']) {
        await notifyLog(extra, level, `this is the ${level} message`);
      }
      await flush(low);
      return text('logged');
    },
  );

  server.registerTool(
    'ask-name',
    { title: 'Ask name', description: 'Asks the user for a name (form elicitation), then greets them', inputSchema: {} },
    async (_args, extra) => {
      const answer = await low.elicitInput(
        {
          mode: 'form',
          message: 'What is your name?',
          requestedSchema: {
            type: 'object',
            properties: { name: { type: 'string', title: 'Name', description: 'Who to greet', default: 'World' } },
            required: ['name'],
          },
        },
        related(extra),
      );
      if (answer.action === 'accept' && typeof answer.content?.name === 'string') return text(`Hello, ${answer.content.name}!`);
      return text('Hello, stranger.');
    },
  );

  server.registerTool(
    'open-link',
    { title: 'Open link', description: 'Asks the user to open a URL (URL-mode elicitation)', inputSchema: {} },
    async (_args, extra) => {
      const answer = await low.elicitInput(
        { mode: 'url', message: 'Please open this page', url: 'https://example.com/connect', elicitationId: randomUUID() },
        related(extra),
      );
      return text(`url elicitation: ${answer.action}`);
    },
  );

  server.registerTool(
    'sample',
    { title: 'Sample', description: 'Asks the client to sample an LLM', inputSchema: { prompt: z.string() } },
    async ({ prompt }, extra) => {
      const result = await low.createMessage(
        { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 50 },
        related(extra),
      );
      return text(`model said: ${result.content.type === 'text' ? result.content.text : JSON.stringify(result.content)}`);
    },
  );

  server.registerTool(
    'roots',
    { title: 'Roots', description: "Lists the client's roots", inputSchema: {} },
    async (_args, extra) => {
      const { roots } = await low.listRoots(undefined, related(extra));
      return text(roots.length ? `roots: ${roots.map((r) => r.uri).join(' ')}` : 'roots: none');
    },
  );

  server.registerResource(
    'readme',
    'testenv://readme',
    { title: 'Readme', description: 'A static text resource', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Hello from the TypeScript SDK v1 test peer.' }] }),
  );

  server.registerResource(
    'item',
    new ResourceTemplate('testenv://items/{name}', {
      list: async () => ({ resources: ITEMS.map((name) => ({ uri: `testenv://items/${name}`, name, mimeType: 'text/plain' })) }),
      complete: { name: (value) => ITEMS.filter((i) => i.startsWith(value)) },
    }),
    { title: 'Item', description: 'One item by name', mimeType: 'text/plain' },
    async (uri, { name }) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: `item ${name}` }] }),
  );

  server.registerPrompt(
    'hello',
    {
      title: 'Hello',
      description: 'A prompt with one completable argument',
      argsSchema: { name: completable(z.string(), (value) => NAMES.filter((n) => n.startsWith(value))) },
    },
    ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${name}.` } }] }),
  );

  return server;
}

function usage() {
  console.error('usage: ts-sdk-v1-server.mjs stdio | http PORT | http-stateless PORT | http-json PORT | sse PORT');
  process.exit(2);
}

async function readJson(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const body = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(body);
  } catch {
    return undefined; // the transport answers -32700 for an unparsable body
  }
}

/** Streamable HTTP at /mcp: stateful (one transport+server per session) or stateless. */
function streamableHandler({ stateful, json, allowedHosts }) {
  const sessions = new Map();
  const options = () => ({
    sessionIdGenerator: stateful ? () => randomUUID() : undefined,
    enableJsonResponse: json,
    enableDnsRebindingProtection: true,
    allowedHosts: allowedHosts(),
  });
  return async (req, res) => {
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    if (!stateful) {
      const server = makeServer();
      const transport = new StreamableHTTPServerTransport(options());
      res.on('close', () => {
        transport.close();
        server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
      return;
    }
    const id = req.headers['mcp-session-id'];
    let transport = id ? sessions.get(id) : undefined;
    if (!transport && !id && req.method === 'POST' && body && isInitializeRequest(body)) {
      transport = new StreamableHTTPServerTransport({
        ...options(),
        onsessioninitialized: (sid) => sessions.set(sid, transport),
      });
      transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
      await makeServer().connect(transport);
    }
    if (!transport) {
      // As the SDK's own examples answer: an unknown session is 404, a missing one 400.
      const status = id ? 404 : 400;
      const message = id ? 'Session not found' : 'Bad Request: No valid session ID provided';
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
      return;
    }
    await transport.handleRequest(req, res, body);
  };
}

/** The deprecated HTTP+SSE transport: GET /sse opens a session, POST /messages?sessionId= feeds it. */
function sseHandler({ allowedHosts }) {
  const sessions = new Map();
  return async (req, res, url) => {
    if (req.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', res, { enableDnsRebindingProtection: true, allowedHosts: allowedHosts() });
      sessions.set(transport.sessionId, transport);
      res.on('close', () => sessions.delete(transport.sessionId));
      await makeServer().connect(transport);
      return;
    }
    if (req.method === 'POST' && url.pathname === '/messages') {
      const transport = sessions.get(url.searchParams.get('sessionId') ?? '');
      if (!transport) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('unknown sessionId\n');
        return;
      }
      await transport.handlePostMessage(req, res, await readJson(req));
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found; GET /sse, POST /messages\n');
  };
}

async function serveStdio() {
  const server = makeServer();
  const transport = new StdioServerTransport();
  // Exit when the client closes stdin, as a well-behaved stdio server does.
  process.stdin.on('end', () => process.exit(0));
  transport.onclose = () => process.exit(0);
  await server.connect(transport);
}

function serveHttp(port) {
  const host = process.env.MCPSCOPE_LISTEN_HOST || '127.0.0.1';
  let hosts = [];
  const allowedHosts = () => hosts;
  const handle =
    mode === 'sse'
      ? sseHandler({ allowedHosts })
      : streamableHandler({ stateful: mode !== 'http-stateless', json: mode === 'http-json', allowedHosts });
  const httpServer = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    try {
      if (mode === 'sse') {
        await handle(req, res, url);
      } else if (url.pathname === '/mcp') {
        await handle(req, res);
      } else {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found; the endpoint is /mcp\n');
      }
    } catch (e) {
      log('handler error:', e);
      if (!res.headersSent) res.writeHead(500).end();
    }
  });
  httpServer.listen(port, host, () => {
    const addr = httpServer.address();
    hosts = [`127.0.0.1:${addr.port}`, `localhost:${addr.port}`];
    // Like everything.sh, the HTTP+SSE mode names the bare origin (its endpoint is /sse).
    const path = mode === 'sse' ? '' : '/mcp';
    process.stderr.write(`mcpscope-testenv: listening on http://${addr.address}:${addr.port}${path} (pid ${process.pid})\n`);
  });
  const stop = () => httpServer.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (mode === 'stdio') {
  await serveStdio();
} else if (['http', 'http-stateless', 'http-json', 'sse'].includes(mode) && portArg !== undefined) {
  serveHttp(Number(portArg));
} else {
  usage();
}
