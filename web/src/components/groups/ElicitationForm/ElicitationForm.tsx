// The form of an elicitation (000's dialog): one input per field of the requested schema, each
// labelled with the schema's `title` by a real `<label for>` and its raw key beside it, defaults
// pre-filled. Accept checks every field first (utils/elicitation) and sends nothing while one is
// wrong; Decline and Cancel always send their action, unchecked. A schema outside the elicitation
// subset is answered in the JSON editor (per field, or whole when it is not a flat object).

import { Alert, Button, Checkbox, Code, Group, Loader, NativeSelect, Stack, Text, TextInput } from '@mantine/core';
import { useEffect, useMemo, useState } from 'react';
import { collect, elicitLayout, initialDrafts, type Draft, type ElicitField } from '../../../utils/elicitation';
import { inputTypeFor, parseJsonText } from '../../../utils/form';
import { shortText, type InteractionAnswer } from '../../../utils/interactions';
import type { FormField, Json, JsonObject } from '../../../utils/types';
import { JsonEditor } from '../JsonEditor/JsonEditor';

export interface ElicitationFormProps {
  /** The interaction's id (unique ids for the inputs). */
  id: number;
  /** `requestedSchema` as the server sent it (anything: it is checked here). */
  schema: Json | undefined;
  onFormModel: (schema: Json) => Promise<FormField>;
  onAnswer: (answer: InteractionAnswer) => void;
  /** An answer is on its way: the buttons wait. */
  busy: boolean;
  /** The accept button's words ("Next" / "Submit all" in a round's walk-through). */
  acceptLabel?: string;
}

type Model = { state: 'loading' } | { state: 'ready'; model: FormField | null; error?: string };

function isObject(v: Json | undefined): v is JsonObject {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** The form model of `schema` from the backend (none for a schema that is not an object). */
function useModel(schema: Json | undefined, onFormModel: (s: Json) => Promise<FormField>): Model {
  const [m, setM] = useState<Model>({ state: 'loading' });
  useEffect(() => {
    if (!isObject(schema)) {
      setM({ state: 'ready', model: null });
      return;
    }
    let live = true;
    onFormModel(schema)
      .then((model) => live && setM({ state: 'ready', model }))
      .catch((e: unknown) => live && setM({ state: 'ready', model: null, error: e instanceof Error ? e.message : String(e) }));
    return () => {
      live = false;
    };
  }, [schema, onFormModel]);
  return m;
}

export function ElicitationForm({ id, schema, onFormModel, onAnswer, busy, acceptLabel }: ElicitationFormProps) {
  const m = useModel(schema, onFormModel);
  if (m.state === 'loading') return <Loader size="sm" data-testid="elicit-loading" />;
  const layout = elicitLayout(schema, m.model);
  if ('fallback' in layout) {
    return <WholeJson id={id} reason={m.error ?? layout.fallback} onAnswer={onAnswer} busy={busy} acceptLabel={acceptLabel} />;
  }
  return <Fields id={id} fields={layout.fields} onAnswer={onAnswer} busy={busy} acceptLabel={acceptLabel} />;
}

interface AnswerProps {
  onAnswer: (a: InteractionAnswer) => void;
  busy: boolean;
  acceptLabel?: string;
}

function Fields({ id, fields, onAnswer, busy, acceptLabel }: { id: number; fields: ElicitField[] } & AnswerProps) {
  const [drafts, setDrafts] = useState<Record<string, Draft>>(() => initialDrafts(fields));
  const [errors, setErrors] = useState<Record<string, string[]> | null>(null);
  const set = (key: string, d: Draft) => {
    setDrafts((old) => ({ ...old, [key]: d }));
    // Once checked, a corrected field loses its error as soon as it is fixed.
    if (errors?.[key]) setErrors((old) => (old ? { ...old, [key]: collect(fields.filter((f) => f.field.key === key), { [key]: d }).errors[key] ?? [] } : old));
  };
  const accept = () => {
    const r = collect(fields, drafts);
    setErrors(r.errors);
    if (r.ok) onAnswer({ action: 'accept', content: r.content });
  };
  const invalid = errors ? Object.values(errors).filter((e) => e.length > 0).length : 0;
  return (
    <form
      noValidate
      data-testid="elicit-form"
      data-valid={errors === null ? undefined : invalid === 0 ? 'true' : 'false'}
      onSubmit={(e) => {
        e.preventDefault();
        accept();
      }}
    >
      <Stack gap="sm">
        {fields.length === 0 && (
          <Text size="sm" c="dimmed">
            The server asks for no fields.
          </Text>
        )}
        {fields.map((f, i) => (
          <FieldRow key={f.field.key} f={f} inputId={`elicit-${id}-${i}`} draft={drafts[f.field.key]} errors={errors?.[f.field.key] ?? []} onDraft={(d) => set(f.field.key, d)} />
        ))}
        {invalid > 0 && (
          <Text size="xs" c="red" data-testid="elicit-invalid">
            {invalid} field{invalid > 1 ? 's need' : ' needs'} fixing — nothing was sent.
          </Text>
        )}
        <Answers onAnswer={onAnswer} busy={busy} acceptLabel={acceptLabel} />
      </Stack>
    </form>
  );
}

/** Cancel · Decline · Accept (the form's submit). Cancel and Decline never validate. */
function Answers({ onAnswer, busy, acceptLabel }: AnswerProps) {
  return (
    <Group gap="xs" justify="flex-end">
      <Button variant="default" onClick={() => onAnswer({ action: 'cancel' })} disabled={busy} data-testid="elicit-cancel">
        Cancel
      </Button>
      <Button variant="light" color="red" onClick={() => onAnswer({ action: 'decline' })} disabled={busy} data-testid="elicit-decline">
        Decline
      </Button>
      <Button type="submit" loading={busy} data-testid="elicit-accept">
        {acceptLabel ?? 'Accept'}
      </Button>
    </Group>
  );
}

interface FieldRowProps {
  f: ElicitField;
  inputId: string;
  draft: Draft;
  errors: string[];
  onDraft: (d: Draft) => void;
}

/** The schema's title (cut if huge; the whole of it on hover) and the raw key beside it. The
 *  required mark stays outside the `<label>`, so the input's accessible name is the title. */
function FieldLabel({ f, htmlFor }: { f: ElicitField; htmlFor?: string }) {
  const { title, key, required } = f.field;
  const shown = shortText(title || key, 200);
  const hover = shown !== title ? title.slice(0, 2000) : undefined;
  return (
    <Group gap={6} wrap="nowrap" align="baseline" className="mcpscope-elicit-label">
      {htmlFor ? (
        <label htmlFor={htmlFor} title={hover} className="mcpscope-elicit-title">
          {shown}
        </label>
      ) : (
        <Text span title={hover} className="mcpscope-elicit-title">
          {shown}
        </Text>
      )}
      {required && (
        <Text span c="red" aria-hidden>
          *
        </Text>
      )}
      <Code data-testid="elicit-key">{shortText(key, 80)}</Code>
    </Group>
  );
}

function FieldRow(p: FieldRowProps) {
  const { f, errors } = p;
  const error = errors.length > 0 ? errors.join('; ') : undefined;
  const description = f.field.description ? shortText(f.field.description, 500) : undefined;
  return (
    <div data-testid="elicit-field" data-key={f.field.key} data-control={f.control} data-invalid={error ? 'true' : 'false'}>
      {f.control === 'boolean' ? (
        <BooleanInput {...p} error={error} description={description} />
      ) : f.control === 'checkboxes' ? (
        <CheckboxList {...p} error={error} description={description} />
      ) : (
        <>
          <FieldLabel f={f} htmlFor={p.inputId} />
          <Control {...p} error={error} description={description} />
        </>
      )}
    </div>
  );
}

type ControlProps = FieldRowProps & { error?: string; description?: string };

function Control({ f, inputId, draft, onDraft, error, description }: ControlProps) {
  const k = f.field.kind;
  const text = typeof draft === 'string' ? draft : '';
  switch (f.control) {
    case 'text':
      return (
        <TextInput
          id={inputId}
          aria-required={f.field.required}
          type={inputTypeFor(k.type === 'string' ? k.format : undefined)}
          value={text}
          description={description}
          error={error}
          onChange={(e) => onDraft(e.currentTarget.value)}
        />
      );
    case 'number': {
      const integer = k.type === 'number' && k.integer;
      const range = k.type === 'number' ? [k.minimum !== undefined ? `≥ ${k.minimum}` : '', k.maximum !== undefined ? `≤ ${k.maximum}` : ''].filter(Boolean).join(', ') : '';
      return (
        <TextInput
          id={inputId}
          aria-required={f.field.required}
          inputMode={integer ? 'numeric' : 'decimal'}
          placeholder={integer ? 'integer' : 'number'}
          value={text}
          description={[description, range].filter(Boolean).join(' · ') || undefined}
          error={error}
          onChange={(e) => onDraft(e.currentTarget.value)}
        />
      );
    }
    case 'select': {
      const options = k.type === 'enum' ? k.options : [];
      const none = f.field.required ? 'choose…' : 'not set';
      return (
        <NativeSelect
          id={inputId}
          aria-required={f.field.required}
          value={text}
          description={description}
          error={error}
          data={[{ value: '', label: none }, ...options.map((o, i) => ({ value: String(i), label: shortText(o.label, 200) }))]}
          onChange={(e) => onDraft(e.currentTarget.value)}
        />
      );
    }
    case 'json':
    default: {
      const parsed = parseJsonText(text);
      return (
        <JsonEditor
          id={inputId}
          value={parsed.value}
          onChange={() => undefined}
          onText={onDraft}
          description={[description, k.type === 'json' ? `(answered as JSON: ${shortText(k.reason, 300)})` : '(answered as JSON)'].filter(Boolean).join(' ')}
          error={error}
          minRows={2}
          testId="elicit-json-field"
        />
      );
    }
  }
}

function BooleanInput({ f, inputId, draft, onDraft, error, description }: ControlProps) {
  return (
    <Group gap={6} wrap="nowrap" align="flex-start">
      <Checkbox
        id={inputId}
        checked={draft === true}
        label={shortText(f.field.title || f.field.key, 200)}
        description={description}
        error={error}
        onChange={(e) => onDraft(e.currentTarget.checked)}
      />
      <Code data-testid="elicit-key">{shortText(f.field.key, 80)}</Code>
    </Group>
  );
}

/** A multi-select as a list of checkboxes (an array of enum / `anyOf` consts): a fieldset
 *  named by the field's title, one labelled checkbox per option. */
function CheckboxList({ f, inputId, draft, onDraft, error, description }: ControlProps) {
  const options = f.field.kind.type === 'enum' ? f.field.kind.options : [];
  const chosen = Array.isArray(draft) ? draft : [];
  const toggle = (i: number, on: boolean) => onDraft(on ? [...chosen.filter((x) => x !== i), i] : chosen.filter((x) => x !== i));
  return (
    <fieldset className="mcpscope-elicit-fieldset" aria-describedby={error ? `${inputId}-error` : undefined}>
      <legend>
        <FieldLabel f={f} />
      </legend>
      {description && (
        <Text size="xs" c="dimmed">
          {description}
        </Text>
      )}
      <Group gap="md" mt={4}>
        {options.map((o, i) => (
          <Checkbox key={i} id={`${inputId}-${i}`} label={shortText(o.label, 200)} checked={chosen.includes(i)} onChange={(e) => toggle(i, e.currentTarget.checked)} />
        ))}
      </Group>
      {error && (
        <Text size="xs" c="red" mt={4} id={`${inputId}-error`}>
          {error}
        </Text>
      )}
    </fieldset>
  );
}

/** The whole answer as JSON: a schema this form cannot draw. */
function WholeJson({ id, reason, onAnswer, busy, acceptLabel }: { id: number; reason: string } & AnswerProps) {
  const [text, setText] = useState('{}');
  const [error, setError] = useState<string | null>(null);
  const parsed = useMemo(() => parseJsonText(text), [text]);
  const accept = () => {
    if (parsed.error) return setError(`not valid JSON: ${parsed.error}`);
    if (!isObject(parsed.value)) return setError('the content must be a JSON object');
    setError(null);
    onAnswer({ action: 'accept', content: parsed.value });
  };
  return (
    <form
      noValidate
      data-testid="elicit-form"
      data-fallback="true"
      onSubmit={(e) => {
        e.preventDefault();
        accept();
      }}
    >
      <Stack gap="sm">
        <Alert color="yellow" p="xs" data-testid="elicit-fallback">
          <Text size="xs">Answered as JSON: {shortText(reason, 300)}.</Text>
        </Alert>
        <JsonEditor id={`elicit-${id}-json`} value={parsed.value} onChange={() => undefined} onText={setText} label="Content (JSON object)" error={error ?? undefined} minRows={4} testId="elicit-json" />
        <Answers onAnswer={onAnswer} busy={busy} acceptLabel={acceptLabel} />
      </Stack>
    </form>
  );
}
