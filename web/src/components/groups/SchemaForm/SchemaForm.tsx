import {
  ActionIcon,
  Alert,
  Autocomplete,
  Button,
  Checkbox,
  Fieldset,
  Group,
  Input,
  MultiSelect,
  Select,
  SegmentedControl,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useState } from 'react';
import {
  arrayBounds,
  boundErrors,
  childPointer,
  dateTimeToLocalInput,
  emptyItem,
  errorsAt,
  fromTriState,
  inputTypeFor,
  localInputToDateTime,
  optionIndex,
  parseNumber,
  removeIndex,
  setIndex,
  setKey,
  toTriState,
  unclaimedErrors,
  type TriState,
} from '../../../utils/form';
import type { FieldError, FormField, Json, JsonObject } from '../../../utils/types';
import { JsonEditor } from '../JsonEditor/JsonEditor';

/** Suggestions for a top-level string field (completion/complete). */
export type CompleteFn = (key: string, value: string, all: JsonObject) => Promise<string[]>;

export interface SchemaFormProps {
  /** The form model from `POST /api/form`. */
  field: FormField;
  value: Json | undefined;
  onChange: (value: Json | undefined) => void;
  errors?: FieldError[];
  complete?: CompleteFn;
  /** Show bound errors as the user types (before any validation round trip). */
  liveBounds?: boolean;
  /** The words of an optional boolean's three choices (the gateway page uses 002's
   *  "Not set" / "True" / "False"). */
  triStateLabels?: TriStateLabels;
}

export type TriStateLabels = Record<TriState, string>;
const TRI_STATE_LABELS: TriStateLabels = { unset: 'not set', true: 'true', false: 'false' };

/** A form drawn from the backend's schema → form model. */
export function SchemaForm({ field, value, onChange, errors = [], complete, liveBounds = true, triStateLabels = TRI_STATE_LABELS }: SchemaFormProps) {
  const rest = unclaimedErrors(field, errors);
  if (field.kind.type === 'object' && field.kind.fields.length === 0) {
    return (
      <Text size="sm" c="dimmed" data-testid="schema-form" data-empty="true">
        This takes no arguments.
      </Text>
    );
  }
  return (
    <Stack gap="sm" data-testid="schema-form">
      {rest.length > 0 && (
        <Alert color="red" p="xs" data-testid="form-errors">
          {rest.map((e, i) => (
            <Text size="xs" key={i}>
              {e.path || '(root)'}: {e.message}
            </Text>
          ))}
        </Alert>
      )}
      <FieldInput
        field={field}
        value={value}
        onChange={onChange}
        pointer=""
        errors={errors}
        complete={complete}
        root={(value ?? {}) as JsonObject}
        liveBounds={liveBounds}
        triStateLabels={triStateLabels}
        isRoot
      />
    </Stack>
  );
}

interface FieldInputProps {
  field: FormField;
  value: Json | undefined;
  onChange: (v: Json | undefined) => void;
  pointer: string;
  errors: FieldError[];
  complete?: CompleteFn;
  root: JsonObject;
  liveBounds: boolean;
  triStateLabels: TriStateLabels;
  isRoot?: boolean;
  /** Array items have no key of their own. */
  inArray?: boolean;
}

function useFieldError(p: FieldInputProps): string | undefined {
  const server = errorsAt(p.errors, p.pointer, p.inArray ? undefined : p.field.key);
  const local = p.liveBounds && p.value !== undefined ? boundErrors(p.field, p.value) : [];
  const all = [...server, ...local.filter((l) => !server.includes(l))];
  return all.length > 0 ? all.join('; ') : undefined;
}

function FieldInput(p: FieldInputProps) {
  const { field, value, onChange } = p;
  const error = useFieldError(p);
  const k = field.kind;
  const label = p.isRoot ? undefined : field.title || field.key;
  const common = {
    label,
    description: field.description,
    withAsterisk: field.required,
    error,
  };
  const wrap = (node: React.ReactNode) => (
    <div data-field={p.pointer} data-kind={k.type} data-testid="form-field">
      {node}
      {field.nullable && !p.isRoot && k.type !== 'enum' && (
        <Checkbox
          mt={4}
          size="xs"
          label="null"
          checked={value === null}
          data-testid="field-null"
          onChange={(e) => onChange(e.currentTarget.checked ? null : undefined)}
        />
      )}
    </div>
  );

  switch (k.type) {
    case 'object': {
      const obj = value && typeof value === 'object' && !Array.isArray(value) ? (value as JsonObject) : undefined;
      const order = k.fields.map((f) => f.key);
      const inner = (
        <Stack gap="sm">
          {k.fields.map((f) => (
            <FieldInput
              key={f.key}
              field={f}
              value={obj?.[f.key]}
              onChange={(v) => {
                const next = setKey(obj, f.key, v, order);
                onChange(next);
              }}
              pointer={childPointer(p.pointer, f.key)}
              errors={p.errors}
              complete={p.isRoot ? p.complete : undefined}
              root={p.root}
              liveBounds={p.liveBounds}
              triStateLabels={p.triStateLabels}
            />
          ))}
        </Stack>
      );
      if (p.isRoot) return <div data-field="" data-kind="object">{inner}</div>;
      return wrap(
        <Fieldset legend={`${label}${field.required ? ' *' : ''}`} variant="filled" p="xs">
          {field.description && (
            <Text size="xs" c="dimmed" mb={4}>
              {field.description}
            </Text>
          )}
          {error && (
            <Text size="xs" c="red" mb={4}>
              {error}
            </Text>
          )}
          {value === null ? <Text size="xs" c="dimmed">null</Text> : inner}
        </Fieldset>,
      );
    }
    case 'array': {
      const arr = Array.isArray(value) ? value : [];
      const { max } = arrayBounds(k);
      return wrap(
        <Input.Wrapper {...common}>
          <Stack gap={6} mt={4}>
            {arr.map((item, i) => (
              <Group key={i} gap="xs" align="flex-start" wrap="nowrap" data-testid="array-item">
                <div className="mcpscope-grow">
                  <FieldInput
                    field={{ ...k.items, title: `${label ?? 'item'} [${i}]`, required: true }}
                    value={item}
                    onChange={(v) => onChange(setIndex(arr, i, v === undefined ? null : v))}
                    pointer={childPointer(p.pointer, i)}
                    errors={p.errors}
                    root={p.root}
                    liveBounds={p.liveBounds}
                    triStateLabels={p.triStateLabels}
                    inArray
                  />
                </div>
                <ActionIcon
                  variant="subtle"
                  color="red"
                  mt={22}
                  aria-label="Remove item"
                  data-testid="array-remove"
                  onClick={() => onChange(removeIndex(arr, i))}
                >
                  ✕
                </ActionIcon>
              </Group>
            ))}
            <Group>
              <Button
                size="compact-xs"
                variant="light"
                disabled={max !== undefined && arr.length >= max}
                data-testid="array-add"
                onClick={() => onChange([...arr, emptyItem(k.items)])}
              >
                + Add item
              </Button>
              {value !== undefined && !field.required && (
                <Button size="compact-xs" variant="subtle" color="gray" onClick={() => onChange(undefined)}>
                  Unset
                </Button>
              )}
            </Group>
          </Stack>
        </Input.Wrapper>,
      );
    }
    case 'string': {
      const type = inputTypeFor(k.format);
      if (p.complete && !p.inArray && type === 'text') {
        return wrap(<CompletingInput {...p} error={error} />);
      }
      const shown = typeof value === 'string' ? (type === 'datetime-local' ? dateTimeToLocalInput(value) : value) : '';
      return wrap(
        <TextInput
          {...common}
          type={type}
          value={shown}
          placeholder={field.default !== undefined ? String(field.default) : k.format ?? undefined}
          onChange={(e) => {
            const t = e.currentTarget.value;
            if (type === 'datetime-local') onChange(localInputToDateTime(t));
            else onChange(t === '' && !field.required && !p.inArray ? undefined : t);
          }}
        />,
      );
    }
    case 'number':
      return wrap(<NumberField {...p} error={error} label={label} />);
    case 'boolean': {
      if (field.required || p.inArray) {
        return wrap(
          <Checkbox
            mt={4}
            label={label}
            description={field.description}
            error={error}
            checked={value === true}
            onChange={(e) => onChange(e.currentTarget.checked)}
          />,
        );
      }
      return wrap(
        <Input.Wrapper {...common}>
          <div>
            <SegmentedControl
              size="xs"
              mt={4}
              value={toTriState(value)}
              data-testid="tri-state"
              data={(['unset', 'true', 'false'] as const).map((t) => ({ value: t, label: p.triStateLabels[t] }))}
              onChange={(t) => onChange(fromTriState(t as TriState))}
            />
          </div>
        </Input.Wrapper>,
      );
    }
    case 'enum': {
      const data = k.options.map((o, i) => ({ value: String(i), label: o.label }));
      if (k.multi) {
        const arr = Array.isArray(value) ? value : [];
        return wrap(
          <MultiSelect
            {...common}
            data={data}
            clearable
            value={arr.map((v) => String(optionIndex(k.options, v))).filter((i) => i !== '-1')}
            onChange={(idx) => onChange(idx.length === 0 && !field.required ? undefined : idx.map((i) => k.options[Number(i)].value))}
          />,
        );
      }
      const nullOption = field.nullable ? [{ value: 'null', label: 'null' }] : [];
      const current = value === null ? 'null' : optionIndex(k.options, value);
      return wrap(
        <Select
          {...common}
          data={[...data, ...nullOption]}
          clearable={!field.required}
          allowDeselect={!field.required}
          placeholder={field.required ? 'choose…' : 'not set'}
          value={current === -1 ? null : String(current)}
          onChange={(i) => onChange(i === null ? undefined : i === 'null' ? null : k.options[Number(i)].value)}
          comboboxProps={{ withinPortal: true }}
        />,
      );
    }
    case 'json':
    default:
      return wrap(
        <JsonEditor
          label={label}
          description={[field.description, k.type === 'json' && k.reason ? `(JSON: ${k.reason})` : ''].filter(Boolean).join(' ')}
          required={field.required}
          error={error}
          value={value}
          onChange={onChange}
          minRows={2}
          testId="field-json"
        />,
      );
  }
}

/** The text a number field shows for a value: a number, or the text that did not parse. */
const numberText = (value: Json | undefined) => (typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '');

/** A number input that keeps what the user typed ("1.", "-") until it parses. Text that does not
 *  parse ("abc") is passed up as it is, never dropped: the JSON view and the validation then show
 *  it, instead of the value it replaced. */
function NumberField(p: FieldInputProps & { error?: string; label?: string }) {
  const { field, value, onChange } = p;
  const integer = field.kind.type === 'number' && field.kind.integer;
  const [text, setText] = useState(() => numberText(value));
  const [seen, setSeen] = useState(value);
  const [bad, setBad] = useState<string | undefined>(() => (typeof value === 'string' ? parseNumber(value, !!integer).error : undefined));
  if (seen !== value) {
    setSeen(value);
    const parsed = parseNumber(text, !!integer);
    if (parsed.value !== value && text !== value) {
      setText(numberText(value));
      setBad(typeof value === 'string' ? parseNumber(value, !!integer).error : undefined);
    }
  }
  const k = field.kind.type === 'number' ? field.kind : undefined;
  const range = [k?.minimum !== undefined ? `≥ ${k.minimum}` : '', k?.maximum !== undefined ? `≤ ${k.maximum}` : '']
    .filter(Boolean)
    .join(', ');
  return (
    <TextInput
      label={p.label}
      description={[field.description, range].filter(Boolean).join(' · ') || undefined}
      withAsterisk={field.required}
      inputMode={integer ? 'numeric' : 'decimal'}
      value={text}
      error={bad ?? p.error}
      placeholder={field.default !== undefined ? String(field.default) : integer ? 'integer' : 'number'}
      onChange={(e) => {
        const t = e.currentTarget.value;
        setText(t);
        const parsed = parseNumber(t, !!integer);
        setBad(parsed.error);
        const next = parsed.error ? t : parsed.value;
        setSeen(next);
        onChange(next);
      }}
    />
  );
}

/** A text input with completion/complete suggestions. */
function CompletingInput(p: FieldInputProps & { error?: string }) {
  const { field, value, onChange } = p;
  const [options, setOptions] = useState<string[]>([]);
  const ask = (v: string) => {
    void p.complete?.(field.key, v, { ...p.root, [field.key]: v }).then(setOptions);
  };
  return (
    <Autocomplete
      label={field.title || field.key}
      description={field.description}
      withAsterisk={field.required}
      error={p.error}
      value={typeof value === 'string' ? value : ''}
      data={options}
      data-testid="completing-input"
      data-suggestions={options.length}
      onFocus={() => ask(typeof value === 'string' ? value : '')}
      onChange={(t) => {
        onChange(t === '' && !field.required ? undefined : t);
        ask(t);
      }}
      comboboxProps={{ withinPortal: true }}
    />
  );
}
