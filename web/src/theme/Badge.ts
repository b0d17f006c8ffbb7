import { Badge as MantineBadge } from '@mantine/core';

export const Badge = MantineBadge.extend({
  defaultProps: { size: 'xs', variant: 'light', radius: 'sm', tt: 'none' },
});
