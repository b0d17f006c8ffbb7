// What ended a connection or a list, said with whose rule it was: the relay's refusals
// (X-Mcpscope-Refusal) are mcpscope's, everything else is the gateway's answer.
import { Alert, Text } from '@mantine/core';
import type { Problem, Status } from '../useGateway';

export function ProblemAlert({ problem, status }: { problem?: Problem; status: Status }) {
  if (status === 'expired') {
    return (
      <Alert color="yellow" title="Session expired" data-testid="session-expired">
        <Text size="sm">The gateway no longer knows this session (it expired). Use Reconnect to start a new session on this gateway and protocol.</Text>
      </Alert>
    );
  }
  if (!problem) return null;
  if (status === 'needs-token') {
    return (
      <Alert color="yellow" title="Bearer token needed" data-testid="problem" data-kind={problem.kind}>
        <Text size="sm">The gateway answered 401. Enter a bearer token, or Reconnect.</Text>
      </Alert>
    );
  }
  const relay = problem.kind === 'refused';
  return (
    <Alert
      color="red"
      title={relay ? `Refused by mcpscope's relay (rule ${problem.rule ?? '?'})` : status === 'failed' ? 'Could not connect' : 'The gateway failed'}
      data-testid="problem"
      data-kind={problem.kind}
      data-rule={problem.rule}
    >
      <Text size="sm" className="mcpscope-pre">
        {problem.message}
      </Text>
    </Alert>
  );
}
