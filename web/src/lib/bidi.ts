// Bidirectional controls in server text are shown, never obeyed (issue 24 item 28). A server's
// tool name, description, result or log line can carry U+202E RIGHT-TO-LEFT OVERRIDE and its
// kin, which reorder what follows: `invoice\u202Eexe.pdf` reads as `invoicefdp.exe`. The CLI and
// the TUI escape them as terminal text; here every text node of the page is rewritten as it is
// added or changed, so one place covers every view (results, JSON trees, Traffic, logs, lists)
// without each component remembering. Only what is drawn changes: the data, Copy and downloads
// keep the bytes as the server sent them. What is edited (input values, a textarea's text, an
// editor) is left as it is, so an argument is sent as typed.

/** The bidi formatting characters (embeddings, overrides, isolates, marks). */
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** `text` with each bidi control replaced by a visible `⟦U+202E⟧`. */
export function showBidi(text: string): string {
  return text.replace(BIDI, (c) => `⟦U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟧`);
}

/** Text that is a value being edited (a textarea's, an editor's) or code, not text to read. */
function editable(node: Node): boolean {
  const p = node.parentElement;
  return !!p && (p.isContentEditable || ['TEXTAREA', 'SCRIPT', 'STYLE'].includes(p.tagName));
}

function fix(node: Node) {
  if (node.nodeType === Node.TEXT_NODE) {
    if (editable(node)) return;
    const v = node.nodeValue ?? '';
    BIDI.lastIndex = 0;
    if (BIDI.test(v)) node.nodeValue = showBidi(v);
    return;
  }
  const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
  for (let t = walker.nextNode(); t; t = walker.nextNode()) fix(t);
}

/** Rewrite bidi controls in `root`'s text now and whenever React adds or changes text. */
export function showBidiControls(root: Node) {
  fix(root);
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === 'characterData') fix(r.target);
      else r.addedNodes.forEach(fix);
    }
  }).observe(root, { subtree: true, childList: true, characterData: true });
}
