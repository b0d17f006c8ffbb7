import { Badge, Group } from '@mantine/core';
import type { Badge as BadgeDef } from '../../../utils/tools';

export interface AnnotationBadgesProps {
  badges: BadgeDef[];
}

/** Annotation badges: audience, read-only, destructive, long-running, hints. */
export function AnnotationBadges({ badges }: AnnotationBadgesProps) {
  if (badges.length === 0) return null;
  return (
    <Group gap={4} wrap="wrap">
      {badges.map((b) => (
        <Badge key={b.label} color={b.color} data-testid="annotation-badge" data-badge={b.label}>
          {b.label}
        </Badge>
      ))}
    </Group>
  );
}
