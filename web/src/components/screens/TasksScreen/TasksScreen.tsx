import { EmptyState, Stack } from '@mantine/core';

/** Tasks: the task list and its controls come in a later version. */
export function TasksScreen() {
  return (
    <Stack p="xl" align="center" data-testid="screen-tasks" data-state="coming-later">
      <EmptyState
        title="Tasks: coming in a later version"
        description="Listing, following and cancelling tasks (tasks/list, tasks/get, tasks/result, tasks/cancel) arrives with the follow-up release. A tool that runs as a task still works from Tools; its requests are in History and Traffic."
      />
    </Stack>
  );
}
