// A hostile MCP Apps server for the e2e journeys (stdio, 2025-11-25): its app floods the bridge,
// sends malformed JSON-RPC, a 3 MB message, loops on size-changed and asks for an unknown
// method; its other "apps" are not HTML, missing, or over the 5 MiB bound. Plain Node, no deps.
import { createInterface } from 'node:readline';

const APP = `<!doctype html><html><head><meta charset="utf-8"><title>hostile</title></head><body>
<h3 id="status" data-state="waiting">waiting</h3>
<button id="flood">flood</button><button id="malformed">malformed</button><button id="huge">huge</button>
<button id="loop">loop</button><button id="unknown">unknown</button>
<button id="fullscreen">fullscreen</button><button id="pip">pip</button><button id="download">download</button><button id="mute">mute teardown</button>
<pre id="answers"></pre>
<script>
var out = document.getElementById('answers');
var muted = false;
function send(m) { window.parent.postMessage(m, '*'); }
window.addEventListener('message', function (e) {
  var m = e.data;
  if (m && m.id === 1 && m.result) { send({ jsonrpc: '2.0', method: 'ui/notifications/initialized', params: {} }); var s = document.getElementById('status'); s.textContent = 'initialized'; s.dataset.state = 'initialized'; return; }
  if (m && m.method === 'ui/resource-teardown') { if (!muted) send({ jsonrpc: '2.0', id: m.id, result: {} }); return; }
  if (m && m.id !== undefined && (m.result !== undefined || m.error !== undefined)) { out.textContent += JSON.stringify(m) + '\\n'; out.dataset.count = String((+out.dataset.count || 0) + 1); }
});
send({ jsonrpc: '2.0', id: 1, method: 'ui/initialize', params: { protocolVersion: '2026-01-26', appInfo: { name: 'hostile', version: '1' }, appCapabilities: {} } });
document.getElementById('flood').onclick = function () { for (var i = 0; i < 5000; i++) send({ jsonrpc: '2.0', method: 'hostile/noise', params: { i: i } }); };
document.getElementById('malformed').onclick = function () { send({ jsonrpc: '1.0', id: 55, method: 'x' }); send('just a string'); send({ jsonrpc: '2.0', id: 56, method: 7 }); };
document.getElementById('huge').onclick = function () { send({ jsonrpc: '2.0', id: 57, method: 'tools/call', params: { name: 'x', arguments: { blob: 'x'.repeat(3000000) } } }); };
document.getElementById('loop').onclick = function () { for (var i = 0; i < 200; i++) send({ jsonrpc: '2.0', method: 'ui/notifications/size-changed', params: { height: 300 + (i % 2) * 200 } }); };
document.getElementById('fullscreen').onclick = function () { send({ jsonrpc: '2.0', id: 60, method: 'ui/request-display-mode', params: { mode: 'fullscreen' } }); };
document.getElementById('pip').onclick = function () { send({ jsonrpc: '2.0', id: 61, method: 'ui/request-display-mode', params: { mode: 'pip' } }); };
document.getElementById('download').onclick = function () { send({ jsonrpc: '2.0', id: 62, method: 'ui/download-file', params: { contents: [{ type: 'resource', resource: { uri: 'file:///hostile/report.csv', mimeType: 'text/csv', text: 'a,b\\n1,2\\n' } }] } }); };
document.getElementById('mute').onclick = function () { muted = true; };
document.getElementById('unknown').onclick = function () { send({ jsonrpc: '2.0', id: 58, method: 'ui/fly-to-the-moon', params: {} }); };
</script></body></html>`;

const tool = (name, uri, description) => ({ name, description, inputSchema: { type: 'object', properties: {} }, _meta: { ui: { resourceUri: uri } } });
const TOOLS = [
  tool('hostile-app', 'ui://hostile/app.html', 'An app that misbehaves on every button'),
  tool('not-html-app', 'ui://hostile/text.txt', 'Its resource is text/plain'),
  tool('missing-app', 'ui://hostile/missing.html', 'Its resource does not exist'),
  tool('huge-app', 'ui://hostile/huge.html', 'Its resource is 6 MiB'),
];

function read(uri) {
  if (uri === 'ui://hostile/app.html') return { contents: [{ uri, mimeType: 'text/html;profile=mcp-app', text: APP }] };
  if (uri === 'ui://hostile/text.txt') return { contents: [{ uri, mimeType: 'text/plain', text: 'not html' }] };
  if (uri === 'ui://hostile/huge.html') return { contents: [{ uri, mimeType: 'text/html;profile=mcp-app', text: '<!doctype html><p>' + 'x'.repeat(6 * 1024 * 1024) }] };
  return null;
}

function answer(msg) {
  switch (msg.method) {
    case 'initialize':
      return { protocolVersion: '2025-11-25', capabilities: { tools: {}, resources: {} }, serverInfo: { name: 'hostile-app-server', version: '1.0.0' } };
    case 'tools/list':
      return { tools: TOOLS };
    case 'tools/call':
      return { content: [{ type: 'text', text: `called ${msg.params?.name}` }] };
    case 'resources/list':
      return { resources: [] };
    case 'resources/templates/list':
      return { resourceTemplates: [] };
    case 'resources/read': {
      const r = read(msg.params?.uri);
      if (!r) throw { code: -32002, message: `Resource not found: ${msg.params?.uri}` };
      return r;
    }
    case 'ping':
      return {};
    default:
      throw { code: -32601, message: `Method not found: ${msg.method}` };
  }
}

const rl = createInterface({ input: process.stdin });
rl.on('line', (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return;
  }
  if (msg.id === undefined || msg.method === undefined) return;
  try {
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: answer(msg) }) + '\n');
  } catch (e) {
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: e }) + '\n');
  }
});
