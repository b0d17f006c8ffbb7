import { describe, expect, it } from 'vitest';
import {
  appendLive,
  appendNewer,
  atBottom,
  emptyWindow,
  nearTop,
  newerCursor,
  olderCursor,
  prependOlder,
  replaceItem,
  visibleRange,
} from './frameWindow';

const f = (seq: number, tag = '') => ({ seq, tag });
const seqs = (w: { items: { seq: number }[] }) => w.items.map((x) => x.seq);

describe('bounded frame window', () => {
  it('appends live frames and drops the oldest past the bound', () => {
    let w = emptyWindow<ReturnType<typeof f>>();
    w = appendLive(w, [f(1), f(2), f(3)], 4);
    expect(seqs(w)).toEqual([1, 2, 3]);
    expect(w.hasOlder).toBe(false);
    w = appendLive(w, [f(4), f(5)], 4);
    expect(seqs(w)).toEqual([2, 3, 4, 5]);
    expect(w.hasOlder).toBe(true);
    expect(olderCursor(w)).toBe(2);
  });

  it('stays bounded over 100,000 frames', () => {
    let w = emptyWindow<ReturnType<typeof f>>();
    for (let i = 0; i < 100_000; i += 100) {
      w = appendLive(w, Array.from({ length: 100 }, (_, j) => f(i + j)), 2000);
    }
    expect(w.items.length).toBe(2000);
    expect(w.items[0].seq).toBe(98_000);
    expect(w.items[1999].seq).toBe(99_999);
  });

  it('merges out-of-order and duplicate frames by seq', () => {
    let w = appendLive(emptyWindow<ReturnType<typeof f>>(), [f(1), f(3)], 10);
    w = appendLive(w, [f(2), f(3, 'updated')], 10);
    expect(seqs(w)).toEqual([1, 2, 3]);
    expect(w.items[2].tag).toBe('updated');
  });

  it('keeps the later copy of a frame sent twice in one batch', () => {
    const w = appendLive(emptyWindow<ReturnType<typeof f>>(), [f(1), f(2, 'first'), f(2, 'second')], 10);
    expect(seqs(w)).toEqual([1, 2]);
    expect(w.items[1].tag).toBe('second');
  });

  it('pages older frames in and drops the newest past the bound', () => {
    let w = appendLive(emptyWindow<ReturnType<typeof f>>(), [f(8), f(9), f(10)], 4);
    w = { ...w, hasOlder: true };
    w = prependOlder(w, [f(5), f(6), f(7)], 4, true);
    expect(seqs(w)).toEqual([5, 6, 7, 8]);
    expect(w.hasNewer).toBe(true);
    expect(w.hasOlder).toBe(true);
    expect(newerCursor(w)).toBe(8);
  });

  it('does not keep live frames while the user reads a full window of old ones', () => {
    let w = { items: [f(5), f(6)], hasOlder: true, hasNewer: true };
    w = appendLive(w, [f(20)], 2, false);
    expect(seqs(w)).toEqual([5, 6]);
    expect(w.hasNewer).toBe(true);
  });

  it('pages newer frames back in', () => {
    let w = { items: [f(5), f(6)], hasOlder: true, hasNewer: true };
    w = appendNewer(w, [f(7), f(8)], 3, false);
    expect(seqs(w)).toEqual([6, 7, 8]);
    expect(w.hasNewer).toBe(false);
  });

  it('replaces an item in place', () => {
    const w = appendLive(emptyWindow<ReturnType<typeof f>>(), [f(1), f(2)], 10);
    expect(replaceItem(w, f(2, 'x')).items[1].tag).toBe('x');
    expect(replaceItem(w, f(9, 'x'))).toBe(w);
  });
});

describe('virtualised list geometry', () => {
  it('renders only what is visible plus overscan', () => {
    expect(visibleRange(0, 300, 30, 10_000, 2)).toEqual({ first: 0, last: 12 });
    expect(visibleRange(30_000, 300, 30, 10_000, 2)).toEqual({ first: 998, last: 1012 });
    expect(visibleRange(0, 300, 30, 0)).toEqual({ first: 0, last: -1 });
  });
  it('detects the bottom and the top', () => {
    expect(atBottom(700, 300, 1000)).toBe(true);
    expect(atBottom(500, 300, 1000)).toBe(false);
    expect(nearTop(100, 30)).toBe(true);
    expect(nearTop(1000, 30)).toBe(false);
  });
});
