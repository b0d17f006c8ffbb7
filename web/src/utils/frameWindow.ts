// The Traffic screen's bounded in-memory window over a server's frames. Live frames append at
// the end; older ones are paged in from the backend at the start. The window never holds more
// than `max` frames: appending drops the oldest (unless the user is reading older pages, then the
// newest are dropped and `hasNewer` says so); prepending drops the newest.

export interface Seqd {
  seq: number;
}

export interface FrameWindow<T extends Seqd> {
  items: T[];
  /** Frames older than the first item exist (in the backend). */
  hasOlder: boolean;
  /** Frames newer than the last item exist (dropped while reading older pages). */
  hasNewer: boolean;
}

export function emptyWindow<T extends Seqd>(): FrameWindow<T> {
  return { items: [], hasOlder: false, hasNewer: false };
}

function insertSorted<T extends Seqd>(items: T[], incoming: T[]): T[] {
  if (incoming.length === 0) return items;
  const last = items.length > 0 ? items[items.length - 1].seq : -Infinity;
  // A frame may come twice with the same seq (an outgoing HTTP frame again once its response
  // completes the header verdicts): the later copy wins.
  const latest = new Map<number, T>();
  for (const f of incoming) latest.set(f.seq, f);
  const sortedIncoming = [...latest.values()].sort((a, b) => a.seq - b.seq);
  if (sortedIncoming[0].seq > last) return items.concat(sortedIncoming);
  // Out of order or overlapping: merge and dedupe by seq (a later copy replaces an earlier one).
  const bySeq = new Map<number, T>();
  for (const f of items) bySeq.set(f.seq, f);
  for (const f of sortedIncoming) bySeq.set(f.seq, f);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

/**
 * Live frames arrive. When `following` (the user is at the bottom, the usual case) the oldest
 * frames are dropped past `max`; otherwise the live frames are not kept and `hasNewer` is set.
 */
export function appendLive<T extends Seqd>(
  win: FrameWindow<T>,
  frames: T[],
  max: number,
  following = true,
): FrameWindow<T> {
  if (frames.length === 0) return win;
  if (!following && win.items.length >= max) return { ...win, hasNewer: true };
  const items = insertSorted(win.items, frames);
  if (items.length <= max) return { ...win, items };
  if (following) return { items: items.slice(items.length - max), hasOlder: true, hasNewer: win.hasNewer };
  return { items: items.slice(0, max), hasOlder: win.hasOlder, hasNewer: true };
}

/** An older page arrived (frames before the first item); `more` says if the backend has more. */
export function prependOlder<T extends Seqd>(win: FrameWindow<T>, frames: T[], max: number, more: boolean): FrameWindow<T> {
  const items = insertSorted(frames, win.items);
  if (items.length <= max) return { items, hasOlder: more, hasNewer: win.hasNewer };
  return { items: items.slice(0, max), hasOlder: more, hasNewer: true };
}

/** A newer page arrived (after dropping newest frames while reading old ones). */
export function appendNewer<T extends Seqd>(win: FrameWindow<T>, frames: T[], max: number, more: boolean): FrameWindow<T> {
  const items = insertSorted(win.items, frames);
  if (items.length <= max) return { items, hasOlder: win.hasOlder, hasNewer: more };
  return { items: items.slice(items.length - max), hasOlder: true, hasNewer: more };
}

/** The `before` cursor to page older frames, or undefined when there is nothing older. */
export function olderCursor<T extends Seqd>(win: FrameWindow<T>): number | undefined {
  return win.hasOlder && win.items.length > 0 ? win.items[0].seq : undefined;
}

/** The `after` cursor to page newer frames. */
export function newerCursor<T extends Seqd>(win: FrameWindow<T>): number | undefined {
  return win.items.length > 0 ? win.items[win.items.length - 1].seq : undefined;
}

/** Replace one item (same seq), e.g. when a frame is updated with its duration. */
export function replaceItem<T extends Seqd>(win: FrameWindow<T>, item: T): FrameWindow<T> {
  const i = win.items.findIndex((f) => f.seq === item.seq);
  if (i < 0) return win;
  const items = [...win.items];
  items[i] = item;
  return { ...win, items };
}

/** Indices to render for a scroll position (the virtualiser's job, kept pure for tests). */
export function visibleRange(scrollTop: number, viewport: number, rowHeight: number, count: number, overscan = 5) {
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(count - 1, Math.ceil((scrollTop + viewport) / rowHeight) + overscan);
  return { first, last: Math.max(first - 1, last) };
}

/** Whether a scroll position is at the bottom (within `slack` pixels): auto-scroll stays on. */
export function atBottom(scrollTop: number, viewport: number, contentHeight: number, slack = 24): boolean {
  return scrollTop + viewport >= contentHeight - slack;
}

/** Whether a scroll position is near the top: time to page older items. */
export function nearTop(scrollTop: number, rowHeight: number, rows = 10): boolean {
  return scrollTop <= rowHeight * rows;
}
