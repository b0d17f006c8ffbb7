import { Tooltip as MantineTooltip } from '@mantine/core';

export const Tooltip = MantineTooltip.extend({
  defaultProps: { withArrow: true, openDelay: 300, multiline: true, maw: 420 },
});
