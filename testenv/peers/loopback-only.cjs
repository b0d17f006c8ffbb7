'use strict';
// Preload (`node --require testenv/peers/loopback-only.cjs …`) that keeps a test peer's TCP
// servers on loopback. server-everything and most example servers call `listen(PORT)`, which
// binds every interface; this rewrites the host of every TCP listen() to 127.0.0.1
// (override with MCPSCOPE_LISTEN_HOST, e.g. ::1). Unix-socket / pipe / handle listens are left
// alone.
//
// Once a TCP server is listening it prints one line to stderr (never stdout, which may be an
// MCP stdio channel):
//   mcpscope-testenv: listening on http://127.0.0.1:PORT (pid N)
// so a caller can start a peer with PORT=0 and read the port the kernel picked.

const net = require('node:net');

const HOST = process.env.MCPSCOPE_LISTEN_HOST || '127.0.0.1';
const original = net.Server.prototype.listen;

function isPortLike(v) {
  return typeof v === 'number' || (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v)));
}

function rewrite(args) {
  const a0 = args[0];
  if (args.length === 0 || typeof a0 === 'function') {
    // listen() / listen(cb): random port on all interfaces -> random port on HOST
    return [0, HOST, ...args];
  }
  if (isPortLike(a0)) {
    // listen(port[, host][, backlog][, cb])
    const out = args.slice();
    if (typeof out[1] === 'string') out[1] = HOST;
    else out.splice(1, 0, HOST);
    return out;
  }
  if (a0 && typeof a0 === 'object' && !('path' in a0) && !('fd' in a0) && !('_handle' in a0) && !('handle' in a0)) {
    // listen({port, host, ...}[, cb])
    return [{ ...a0, host: HOST }, ...args.slice(1)];
  }
  return args; // pipe path, handle or fd: not a TCP listen on an interface
}

net.Server.prototype.listen = function listenOnLoopback(...args) {
  const rewritten = rewrite(args);
  if (rewritten !== args) {
    this.once('listening', () => {
      const addr = this.address();
      if (addr && typeof addr === 'object') {
        const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
        process.stderr.write(`mcpscope-testenv: listening on http://${host}:${addr.port} (pid ${process.pid})\n`);
      }
    });
  }
  return original.apply(this, rewritten);
};
