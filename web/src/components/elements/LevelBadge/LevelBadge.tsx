import { Badge } from '@mantine/core';
import { levelColor } from '../../../utils/logs';

export interface LevelBadgeProps {
  level: string;
}

/** A log level, coloured by severity. */
export function LevelBadge({ level }: LevelBadgeProps) {
  return (
    <Badge color={levelColor(level)} variant="filled" w={78} data-level={level.toLowerCase()}>
      {level.toUpperCase()}
    </Badge>
  );
}
