import { Textarea } from '@mantine/core';
import { useState } from 'react';
import { jsonEqual, parseJsonText, toJsonText } from '../../../utils/form';
import type { Json } from '../../../utils/types';

export interface JsonEditorProps {
  value: Json | undefined;
  onChange: (value: Json | undefined) => void;
  label?: string;
  description?: string;
  error?: string;
  required?: boolean;
  minRows?: number;
  testId?: string;
  placeholder?: string;
  /** Every keystroke's text, also one that does not parse (a form that must refuse it). */
  onText?: (text: string) => void;
  /** The textarea's id (for a `<label for>` outside it). */
  id?: string;
}

/**
 * A JSON text editor that never re-escapes while typing: the text is the user's, parsed on each
 * keystroke, and only a valid parse is passed up. A value changed from outside (form ↔ JSON toggle,
 * replay) replaces the text only when it differs from what the text already means.
 */
export function JsonEditor({ value, onChange, label, description, error, required, minRows = 4, testId, placeholder, onText, id }: JsonEditorProps) {
  const [text, setText] = useState(() => toJsonText(value));
  const [seen, setSeen] = useState<Json | undefined>(value);
  const [parseError, setParseError] = useState<string | undefined>(undefined);
  if (!jsonEqual(seen, value)) {
    // Adjusting state during render (not in an effect): the value changed from outside.
    setSeen(value);
    if (!jsonEqual(parseJsonText(text).value, value)) {
      setText(toJsonText(value));
      setParseError(undefined);
    }
  }
  return (
    <Textarea
      id={id}
      label={label}
      description={description}
      withAsterisk={required}
      autosize
      minRows={minRows}
      maxRows={24}
      ff="monospace"
      fz="xs"
      spellCheck={false}
      placeholder={placeholder ?? '{ }'}
      value={text}
      error={parseError ?? error}
      data-testid={testId ?? 'json-editor'}
      data-valid={parseError ? 'false' : 'true'}
      onChange={(e) => {
        const t = e.currentTarget.value;
        setText(t);
        onText?.(t);
        const parsed = parseJsonText(t);
        if (parsed.error) {
          setParseError(parsed.error);
          return;
        }
        setParseError(undefined);
        setSeen(parsed.value);
        onChange(parsed.value);
      }}
    />
  );
}
