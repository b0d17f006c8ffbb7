// Small formatting helpers: times, durations, sizes, truncation.

/** HH:MM:SS.mmm of a microsecond timestamp, in local time. */
export function clockUs(us: number): string {
  const d = new Date(Math.floor(us / 1000));
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** A duration for humans: 850 ms, 1.2 s, 2 m 05 s. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  return `${m} m ${String(s).padStart(2, '0')} s`;
}

/** A byte count for humans. */
export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}

/** Cut `text` to `max` characters; says whether it was cut. */
export function truncate(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  return { text: text.slice(0, max), cut: true };
}

/** The engine's advice names the command line's flag (`--protocol-era`); in the web UI the
 *  Protocol selector (top bar, or the server's Edit form) does that, so an error says to choose
 *  there instead — as the terminal UI says "press e" (`era_advice_for_tui`). */
export function eraAdviceForWeb(text: string): string {
  return text
    .replaceAll('try --protocol-era legacy or auto', 'choose Protocol 2025-11-25 or Auto (top bar, or Edit on the card)')
    .replaceAll('rerun with --protocol-era modern or a larger --probe-timeout', 'choose Protocol 2026-07-28 (top bar, or Edit on the card)');
}

/** An error's message and the engine's advice (`hint`) apart: the message ends with the advice,
 *  which must not hide behind "Show more", so a view shows the advice on a line of its own. */
export function splitHint(message: string, hint: unknown): { message: string; hint: string | null } {
  if (typeof hint !== 'string' || hint === '') return { message: eraAdviceForWeb(message), hint: null };
  const own = message.endsWith(`; ${hint}`) ? message.slice(0, -(hint.length + 2)) : message;
  return { message: eraAdviceForWeb(own), hint: eraAdviceForWeb(hint) };
}

/** The first line of an error, cut to about 100 characters ("show more" shows the rest). When
 *  that line introduces lines below it (it ends with ':', as a failed server's "last stderr
 *  lines:"), the line among them that names the cause comes with it: the reason a server died
 *  must not hide behind "Show more". */
export function errorHeadline(message: string, max = 100): { head: string; more: boolean } {
  const [firstLine, ...rest] = message.split('\n');
  if (firstLine.length <= max && rest.length === 0) return { head: message, more: false };
  const cut = (line: string) => (line.length > max ? line.slice(0, max) + '…' : line);
  const cause = firstLine.trimEnd().endsWith(':') ? causeLine(rest) : null;
  if (cause === null) return { head: cut(firstLine), more: true };
  return { head: `${cut(firstLine)}\n${cut(cause)}`, more: rest.length > 1 || cause.length > max };
}

/** Among a dead process's last lines, the one that says why: the first naming an error
 *  (Python's last traceback line, Node's "Error: Cannot find module"), else the first line. */
function causeLine(lines: string[]): string | null {
  const shown = lines.map((l) => l.trim()).filter((l) => l !== '');
  return shown.find((l) => /error|exception|cannot|can't|not found|no such|denied|refused|failed|invalid/i.test(l)) ?? shown[0] ?? null;
}

/** Pretty JSON, or the text itself when it is not JSON. */
export function prettyJsonText(text: string): { text: string; json: boolean } {
  try {
    return { text: JSON.stringify(JSON.parse(text), null, 2), json: true };
  } catch {
    return { text, json: false };
  }
}

/** Parse JSON text, undefined when it is not JSON. */
export function tryParseJson(text: string | null | undefined): unknown {
  if (text === null || text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Lines of a hex dump: offset, 16 bytes in hex, ASCII. */
export function hexDump(data: Uint8Array, maxBytes = 4096): string[] {
  const lines: string[] = [];
  const n = Math.min(data.length, maxBytes);
  for (let off = 0; off < n; off += 16) {
    const chunk = data.subarray(off, Math.min(off + 16, n));
    const hex = Array.from(chunk, (b) => b.toString(16).padStart(2, '0')).join(' ');
    const ascii = Array.from(chunk, (b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
    lines.push(`${off.toString(16).padStart(8, '0')}  ${hex.padEnd(47, ' ')}  ${ascii}`);
  }
  return lines;
}

/** Decode base64 to bytes. */
export function base64ToBytes(b64: string): Uint8Array {
  const bin = atob(b64.replace(/\s+/g, ''));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Decoded size of a base64 string. */
export function base64Size(b64: string): number {
  const clean = b64.replace(/\s+/g, '');
  const pad = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.floor((clean.length * 3) / 4) - pad;
}
