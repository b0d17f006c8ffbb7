import { Code as MantineCode } from '@mantine/core';

export const Code = MantineCode.extend({
  defaultProps: { fz: 'xs' },
});
