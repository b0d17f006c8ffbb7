// The gateway page's argument forms, from the one owner of the rule: the backend's schema → form
// model (`POST /api/form`) and argument check (`POST /api/validate`) — mcpscope_proto::form behind
// the very routes and handlers the web UI calls (`web/src/lib/api.ts`; docs/gateway.md "Routes").
// Nothing about a schema is decided here. What this file adds is 002's presentation of a tool's
// form: one input per top-level argument, and "complex object and array inputs accept JSON", so a
// top-level object or array argument is drawn as a JSON input instead of nested fields.

import { useEffect, useState } from 'react';
import { api } from '../lib/api';
import { initialValue } from '../utils/form';
import type { FieldError, FormField, Json } from '../utils/types';

/** Form models kept per schema, so re-listing tools or coming back to one asks nothing again. */
const models = new Map<string, Promise<FormField>>();
/** Schemas whose models are kept (a gateway lists tens of tools; a flood is not kept whole). */
const MODELS_KEPT = 128;

/** The text of a failure, for the page. */
export const reasonOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** 002's presentation of the backend's model: top-level objects and arrays become JSON inputs
 *  (their reason says which); everything else is drawn as the model says. */
export function gatewayForm(model: FormField): FormField {
  if (model.kind.type !== 'object') return model;
  const fields = model.kind.fields.map((f): FormField => {
    if (f.kind.type === 'object') return { ...f, kind: { type: 'json', reason: 'an object' } };
    if (f.kind.type === 'array') return { ...f, kind: { type: 'json', reason: 'an array' } };
    return f;
  });
  return { ...model, kind: { ...model.kind, fields } };
}

/** The form of a tool's `inputSchema` (or a prompt's arguments as a schema), asked once per schema. */
export function formOf(schema: Json): Promise<FormField> {
  const key = JSON.stringify(schema);
  let p = models.get(key);
  if (!p) {
    p = api.form(schema).then(gatewayForm);
    // A failure (an expired cookie, a schema over the body cap) is asked again next time.
    p.catch(() => models.delete(key));
    if (models.size >= MODELS_KEPT) {
      const oldest = models.keys().next().value;
      if (oldest !== undefined) models.delete(oldest);
    }
    models.set(key, p);
  }
  return p;
}

/** Validate only: the arguments against the schema, each problem at its JSON pointer. Throws when
 *  the check cannot be made (a schema the backend will not use: 422, with the reason). */
export async function checkArguments(schema: Json, args: Json): Promise<FieldError[]> {
  return (await api.validate(schema, args)).errors;
}

/** When a form cannot be had: the arguments as one JSON input, saying why. */
const jsonForm = (reason: string): FormField => ({ key: '', title: '', required: true, nullable: false, kind: { type: 'json', reason } });

export interface ArgumentsForm {
  /** The model, once the backend answered (`undefined` while it is asked). */
  form?: FormField;
  /** Why there is no form (the arguments are then one JSON input). */
  problem?: string;
  value: Json | undefined;
  setValue: (v: Json | undefined) => void;
}

/** The form of `schema` and its value, started from the model's defaults once it arrives. A new
 *  schema (another tool) starts over; the same schema listed again keeps what was typed. */
export function useArgumentsForm(schema: Json, start: 'defaults' | 'empty' = 'defaults'): ArgumentsForm {
  const key = JSON.stringify(schema);
  const [state, setState] = useState<{ key: string; form?: FormField; problem?: string }>({ key });
  const [value, setValue] = useState<Json | undefined>(undefined);
  useEffect(() => {
    let live = true;
    setState({ key });
    formOf(schema).then(
      (form) => {
        if (!live) return;
        setState({ key, form });
        setValue((v) => (v !== undefined ? v : start === 'defaults' ? (initialValue(form) ?? {}) : {}));
      },
      (e) => {
        if (!live) return;
        setState({ key, form: jsonForm(`no form: ${reasonOf(e)}`), problem: reasonOf(e) });
        setValue((v) => (v !== undefined ? v : {}));
      },
    );
    return () => {
      live = false;
    };
    // The schema's text is the dependency: a re-listed tool is a new object with the same schema.
  }, [key]);
  const current = state.key === key ? state : { key };
  return { form: current.form, problem: current.problem, value, setValue };
}
