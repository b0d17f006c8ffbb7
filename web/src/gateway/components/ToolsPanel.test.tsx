import { describe, expect, it } from 'vitest';
import file from '../../../../crates/mcpscope-gateway/tests/form_cases.json';
import { SchemaForm } from '../../components/groups/SchemaForm/SchemaForm';
import { render } from '../../test/render';
import type { FieldError, FormField, Json } from '../../utils/types';
import { gatewayForm } from '../forms';
import { TRI_STATE } from './ToolsPanel';

// The backend's models (form_cases.json: what POST /api/form answers, asserted by the gateway
// crate's tests) drawn as the gateway page draws them. 002: "Complex object and array inputs
// accept JSON. Optional booleans offer Not set, True, and False; Not set omits the argument."
const cases = file.cases as unknown as { form: FormField; checks: { value: Json; errors?: FieldError[] }[] }[];

describe("a tool's generated inputs on the gateway page", () => {
  const form = gatewayForm(cases[1].form);
  const html = render(<SchemaForm field={form} value={{}} onChange={() => undefined} triStateLabels={TRI_STATE} />);

  it('an optional boolean offers Not set, True and False; a required one is a checkbox', () => {
    const loud = html.slice(html.indexOf('data-field="/loud"'), html.indexOf('data-field="/sure"'));
    expect(loud).toContain('data-testid="tri-state"');
    for (const word of ['Not set', 'True', 'False']) expect(loud).toContain(`>${word}<`);
    const sure = html.slice(html.indexOf('data-field="/sure"'));
    expect(sure).not.toContain('tri-state');
    expect(sure).toContain('type="checkbox"');
  });

  it('objects and arrays are JSON inputs', () => {
    const tool = render(<SchemaForm field={gatewayForm(cases[0].form)} value={{}} onChange={() => undefined} triStateLabels={TRI_STATE} />);
    expect(tool).toContain('data-field="/tags" data-kind="json"');
    expect(tool).toContain('data-field="/opts" data-kind="json"');
  });

  it("Validate only's answer is shown under the field it names (a missing required argument too)", () => {
    const [missing, , bad] = cases[0].checks;
    /** The HTML of one top-level field: from its wrapper to the next field's. */
    const field = (h: string, key: string) => {
      const at = h.indexOf(`data-field="/${key}"`);
      const next = h.indexOf('data-field="/', at + 1);
      return h.slice(at, next < 0 ? undefined : next);
    };
    const one = render(<SchemaForm field={gatewayForm(cases[0].form)} value={{}} onChange={() => undefined} errors={missing.errors} liveBounds={false} />);
    // SchemaForm shows the root's '"Name" is a required property' under the field as "required".
    expect(field(one, 'Name')).toContain('>required<');
    const many = render(<SchemaForm field={gatewayForm(cases[0].form)} value={bad.value} onChange={() => undefined} errors={bad.errors} liveBounds={false} />);
    expect(field(many, 'count')).toContain('is not of type');
    expect(field(many, 'mood')).toContain('is not one of');
    // The unexpected argument has no field: it is listed above the form.
    expect(many).toContain('data-testid="form-errors"');
    expect(many).toContain('extra');
  });
});
