import { Card as MantineCard } from '@mantine/core';

export const Card = MantineCard.extend({
  defaultProps: { withBorder: true, radius: 'md', padding: 'sm' },
});
