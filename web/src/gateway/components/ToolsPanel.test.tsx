import { describe, expect, it } from 'vitest';
import { SchemaForm } from '../../components/groups/SchemaForm/SchemaForm';
import { render } from '../../test/render';
import { formModel } from '../schema';
import { TRI_STATE } from './ToolsPanel';

// 002: "Complex object and array inputs accept JSON. Optional booleans offer Not set, True, and
// False; Not set omits the argument."
describe("a tool's generated inputs on the gateway page", () => {
  const form = formModel({
    type: 'object',
    properties: {
      Name: { type: 'string' },
      loud: { type: 'boolean', description: 'Shout' },
      sure: { type: 'boolean' },
      tags: { type: 'array', items: { type: 'string' } },
      opts: { type: 'object', properties: { a: { type: 'string' } } },
    },
    required: ['Name', 'sure'],
  });
  const html = render(<SchemaForm field={form} value={{}} onChange={() => undefined} triStateLabels={TRI_STATE} />);

  it('an optional boolean offers Not set, True and False; a required one is a checkbox', () => {
    const loud = html.slice(html.indexOf('data-field="/loud"'), html.indexOf('data-field="/sure"'));
    expect(loud).toContain('data-testid="tri-state"');
    for (const word of ['Not set', 'True', 'False']) expect(loud).toContain(`>${word}<`);
    const sure = html.slice(html.indexOf('data-field="/sure"'), html.indexOf('data-field="/tags"'));
    expect(sure).not.toContain('tri-state');
    expect(sure).toContain('type="checkbox"');
  });

  it('objects and arrays are JSON inputs', () => {
    expect(html).toContain('data-field="/tags" data-kind="json"');
    expect(html).toContain('data-field="/opts" data-kind="json"');
  });
});
