import { Box } from '@mantine/core';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, type ReactNode } from 'react';
import { atBottom, nearTop } from '../../../utils/frameWindow';

export interface VirtualListProps {
  count: number;
  /** Estimated row height in px (rows are measured after render). */
  estimate: number;
  row: (index: number) => ReactNode;
  rowKey?: (index: number) => string | number;
  /** Keep the view at the bottom as rows arrive (auto-scroll). */
  follow?: boolean;
  /** The user scrolled away from / back to the bottom. */
  onFollowChange?: (following: boolean) => void;
  /** The user scrolled near the top: page older rows in. */
  onNearTop?: () => void;
  testId?: string;
  /** Scroll this index into view (e.g. after a jump). */
  scrollToIndex?: number | null;
}

/** A virtualised list: only visible rows are in the DOM (10,000 tools, 100,000 frames). */
export function VirtualList({ count, estimate, row, rowKey, follow, onFollowChange, onNearTop, testId, scrollToIndex }: VirtualListProps) {
  const parent = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({
    count,
    getScrollElement: () => parent.current,
    estimateSize: () => estimate,
    overscan: 8,
    getItemKey: rowKey,
  });
  useEffect(() => {
    if (follow && count > 0) v.scrollToIndex(count - 1, { align: 'end' });
  }, [follow, count, v]);
  // A list on a hidden tab (display: none) has no height: rows that came meanwhile were never
  // scrolled to. When it is shown again, measure and go to the newest row if following.
  const latest = useRef({ follow, count });
  latest.current = { follow, count };
  useEffect(() => {
    const el = parent.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    let shown = el.clientHeight > 0;
    const ro = new ResizeObserver(() => {
      const now = el.clientHeight > 0;
      if (now && !shown) {
        v.measure();
        const { follow: f, count: n } = latest.current;
        if (f && n > 0) v.scrollToIndex(n - 1, { align: 'end' });
      }
      shown = now;
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, [v]);
  useEffect(() => {
    if (scrollToIndex !== null && scrollToIndex !== undefined && scrollToIndex >= 0) v.scrollToIndex(scrollToIndex, { align: 'center' });
  }, [scrollToIndex, v]);
  const items = v.getVirtualItems();
  return (
    <div
      ref={parent}
      className="mcpscope-scroll mcpscope-grow"
      data-testid={testId}
      data-count={count}
      onScroll={(e) => {
        const el = e.currentTarget;
        onFollowChange?.(atBottom(el.scrollTop, el.clientHeight, el.scrollHeight));
        if (onNearTop && nearTop(el.scrollTop, estimate)) onNearTop();
      }}
    >
      <Box className="mcpscope-virtual-inner" h={v.getTotalSize()}>
        {items.map((it) => (
          <Box key={it.key} className="mcpscope-virtual-row" top={it.start} data-index={it.index} ref={v.measureElement}>
            {row(it.index)}
          </Box>
        ))}
      </Box>
    </div>
  );
}
