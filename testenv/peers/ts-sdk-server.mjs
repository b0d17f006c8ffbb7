// A dual-era MCP server built on the official TypeScript SDK v2
// (@modelcontextprotocol/server 2.4.0 + @modelcontextprotocol/node 2.1.2). Needs Node 22.
//
//   .peers/node22/node_modules/.bin/node testenv/peers/ts-sdk-server.mjs stdio
//   .peers/node22/node_modules/.bin/node testenv/peers/ts-sdk-server.mjs http PORT   # http://127.0.0.1:PORT/mcp
//   (or testenv/peers/ts-sdk-server.sh stdio | http PORT)
//
// Both eras on both transports, from ONE factory (the SDK decides the era per connection on
// stdio and per request on HTTP):
//   legacy  2025-11-25: `initialize` handshake; HTTP is served statelessly (no Mcp-Session-Id,
//           GET/DELETE -> 405).
//   modern  2026-07-28: `server/discover` + per-request `_meta` envelope.
//
// Surface (identical in both eras):
//   tools     echo {message}            -> text "Echo: <message>"
//             add {a, b}                -> text "<a+b>" + structuredContent {sum}
//             greet {}                  -> asks the client for a name, then "Hello, <name>!"
//                modern: first call returns resultType "input_required" with
//                  inputRequests.name = elicitation/create (form, field `name`, default "World")
//                  and requestState "greet-round-1"; the retry must carry
//                  inputResponses.name = {action:"accept", content:{name}} and the same requestState.
//                legacy: sends a server->client `elicitation/create` request mid-call (needs the
//                  client's `elicitation` capability).
//                decline/cancel -> text "Hello, stranger." (not an error)
//   resources testenv://readme (text/plain)
//   prompts   hello {name}              -> one user message "Say hello to <name>."
//
// The HTTP listener binds 127.0.0.1 only (MCPSCOPE_LISTEN_HOST to change); PORT 0 picks a free
// port. Once listening it prints `mcpscope-testenv: listening on http://127.0.0.1:PORT/mcp (pid N)`
// on stderr. Logging goes to stderr only.

import { createRequire } from 'node:module';
import { createServer } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const peersDir = process.env.MCPSCOPE_PEERS_DIR || resolve(here, '..', '..', '.peers');
// The SDK lives in .peers/peers/node_modules, not next to this file: resolve it from there.
const require = createRequire(join(peersDir, 'peers', 'node_modules', '_'));
const {
  McpServer,
  createMcpHandler,
  fromJsonSchema,
  inputRequired,
  inputResponse,
} = require('@modelcontextprotocol/server');
const { serveStdio } = require('@modelcontextprotocol/server/stdio');
const { toNodeHandler, localhostHostValidation, localhostOriginValidation } = require('@modelcontextprotocol/node');

const SERVER_INFO = { name: 'mcpscope-testenv-ts-sdk-server', version: '2.4.0' };
const GREET_STATE = 'greet-round-1';
const NAME_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string', title: 'Name', description: 'Who to greet', default: 'World' } },
  required: ['name'],
};

function log(...args) {
  if (process.env.MCPSCOPE_TS_SERVER_QUIET !== '1') console.error('[ts-sdk-server]', ...args);
}

/** One McpServer per connection (stdio) or per request (HTTP); `era` is chosen by the SDK. */
function makeServer({ era }) {
  const server = new McpServer(SERVER_INFO, {
    capabilities: { tools: {}, resources: {}, prompts: {} },
    instructions: 'mcpscope test peer (TypeScript SDK v2). Tools: echo, add, greet.',
  });

  server.registerTool(
    'echo',
    {
      title: 'Echo',
      description: 'Echoes the message back',
      inputSchema: fromJsonSchema({
        type: 'object',
        properties: { message: { type: 'string', description: 'Text to echo' } },
        required: ['message'],
      }),
    },
    async ({ message }) => ({ content: [{ type: 'text', text: `Echo: ${message}` }] }),
  );

  server.registerTool(
    'add',
    {
      title: 'Add',
      description: 'Adds two numbers',
      inputSchema: fromJsonSchema({
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      }),
      outputSchema: fromJsonSchema({
        type: 'object',
        properties: { sum: { type: 'number' } },
        required: ['sum'],
      }),
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
  );

  server.registerTool(
    'greet',
    {
      title: 'Greet',
      description: 'Asks the user for a name (elicitation), then greets them',
      inputSchema: fromJsonSchema({ type: 'object', properties: {} }),
    },
    async (_args, ctx) => {
      const message = 'What is your name?';
      if (era === 'modern') {
        const answer = inputResponse(ctx.mcpReq.inputResponses, 'name');
        const state = ctx.mcpReq.requestState();
        if (answer.kind !== 'elicit' || state !== GREET_STATE) {
          log(`greet: input_required (had response kind=${answer.kind}, requestState=${JSON.stringify(state)})`);
          return inputRequired({
            inputRequests: { name: inputRequired.elicit({ message, requestedSchema: NAME_SCHEMA }) },
            requestState: GREET_STATE,
          });
        }
        return greeting(answer.action, answer.content);
      }
      const result = await ctx.mcpReq.elicitInput({ mode: 'form', message, requestedSchema: NAME_SCHEMA });
      return greeting(result.action, result.content);
    },
  );

  server.registerResource(
    'readme',
    'testenv://readme',
    { title: 'Readme', description: 'A static text resource', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Hello from the TypeScript SDK v2 test peer.' }] }),
  );

  server.registerPrompt(
    'hello',
    {
      title: 'Hello',
      description: 'A prompt with one argument',
      argsSchema: fromJsonSchema({ type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }),
    },
    ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${name}.` } }] }),
  );

  log(`new ${era} instance`);
  return server;
}

function greeting(action, content) {
  if (action === 'accept' && content && typeof content.name === 'string') {
    return { content: [{ type: 'text', text: `Hello, ${content.name}!` }] };
  }
  return { content: [{ type: 'text', text: 'Hello, stranger.' }] };
}

function usage() {
  console.error('usage: ts-sdk-server.mjs stdio | http PORT');
  process.exit(2);
}

const [mode, portArg] = process.argv.slice(2);
if (mode === 'stdio') {
  const handle = serveStdio(makeServer, { onerror: (e) => log('error:', e.message) });
  const stop = async () => {
    await handle.close().catch(() => {});
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
} else if (mode === 'http' && portArg !== undefined) {
  const host = process.env.MCPSCOPE_LISTEN_HOST || '127.0.0.1';
  const handler = createMcpHandler(makeServer, { onerror: (e) => log('error:', e.message) });
  const nodeHandler = toNodeHandler(handler);
  const validateHost = localhostHostValidation();
  const validateOrigin = localhostOriginValidation();
  const httpServer = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== '/mcp') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found; the endpoint is /mcp\n');
      return;
    }
    if (!validateHost(req, res) || !validateOrigin(req, res)) return;
    try {
      await nodeHandler(req, res);
    } catch (e) {
      log('handler error:', e);
      if (!res.headersSent) res.writeHead(500).end();
    }
  });
  httpServer.listen(Number(portArg), host, () => {
    const addr = httpServer.address();
    const shown = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    process.stderr.write(`mcpscope-testenv: listening on http://${shown}:${addr.port}/mcp (pid ${process.pid})\n`);
  });
  const stop = () => {
    httpServer.close();
    handler.close().finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
} else {
  usage();
}
