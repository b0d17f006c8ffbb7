import { Modal as MantineModal } from '@mantine/core';

export const Modal = MantineModal.extend({
  defaultProps: { size: 'lg', centered: true, overlayProps: { backgroundOpacity: 0.45 } },
});
