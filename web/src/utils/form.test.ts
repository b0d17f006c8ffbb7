import { describe, expect, it } from 'vitest';
import {
  arrayBounds,
  boundErrors,
  childPointer,
  dateTimeToLocalInput,
  emptyItem,
  errorsAt,
  fromTriState,
  initialValue,
  inputTypeFor,
  localInputToDateTime,
  optionIndex,
  parseJsonText,
  parseNumber,
  promptArgumentsSchema,
  removeIndex,
  setIndex,
  setKey,
  stringBounds,
  toTriState,
  unclaimedErrors,
} from './form';
import type { FormField } from './types';

const str = (key: string, extra: Partial<FormField> = {}): FormField => ({
  key,
  title: key,
  required: false,
  nullable: false,
  kind: { type: 'string' },
  ...extra,
});

const form: FormField = {
  key: '',
  title: '',
  required: false,
  nullable: false,
  kind: {
    type: 'object',
    open: true,
    fields: [
      str('email', { required: true }),
      { ...str('age'), default: 30, kind: { type: 'number', integer: true, minimum: 0, maximum: 150 } },
      {
        ...str('home', { required: true }),
        kind: { type: 'object', open: false, fields: [str('street', { required: true }), str('city')] },
      },
      { ...str('tags'), kind: { type: 'array', items: str(''), min_items: 1, max_items: 3 } },
      { ...str('agree'), kind: { type: 'boolean' } },
    ],
  },
};

describe('initialValue', () => {
  it('pre-fills defaults and builds required objects, leaving optional fields unset', () => {
    expect(initialValue(form)).toEqual({ age: 30, home: {} });
  });
  it('uses a default over anything else', () => {
    expect(initialValue({ ...str('x'), default: 'hi' })).toBe('hi');
  });
});

describe('value editing', () => {
  it('sets and removes keys without mutating', () => {
    const a = { x: 1 };
    const b = setKey(a, 'y', 2);
    expect(b).toEqual({ x: 1, y: 2 });
    expect(a).toEqual({ x: 1 });
    expect(setKey(b, 'x', undefined)).toEqual({ y: 2 });
    expect(setKey(undefined, 'k', 'v')).toEqual({ k: 'v' });
  });
  it('keeps the schema order of keys, whatever order they were filled in', () => {
    const filled = setKey(setKey(undefined, 'email', 'a@b.c', ['name', 'email']), 'name', 'Ada', ['name', 'email']);
    expect(Object.keys(filled)).toEqual(['name', 'email']);
    // A key the schema does not name stays, after the named ones.
    expect(Object.keys(setKey({ extra: 1, email: 'x' }, 'name', 'Ada', ['name', 'email']))).toEqual([
      'name',
      'email',
      'extra',
    ]);
  });
  it('edits arrays', () => {
    expect(setIndex(['a', 'b'], 1, 'c')).toEqual(['a', 'c']);
    expect(removeIndex(['a', 'b', 'c'], 1)).toEqual(['a', 'c']);
    expect(emptyItem(str(''))).toBe('');
    expect(emptyItem({ ...str(''), kind: { type: 'number', integer: false } })).toBe(0);
    expect(emptyItem({ ...str(''), kind: { type: 'object', open: true, fields: [] } })).toEqual({});
  });
  it('reads bounds', () => {
    expect(arrayBounds({ type: 'array', items: str(''), min_items: 2 })).toEqual({ min: 2, max: undefined });
    expect(stringBounds({ type: 'string', min_length: 1, max_length: 4 })).toEqual({ min: 1, max: 4 });
  });
});

describe('errors under fields', () => {
  const errors = [
    { path: '', message: '"email" is a required property' },
    { path: '/age', message: '200 is greater than the maximum of 150' },
    { path: '/home', message: '"street" is a required property' },
    { path: '/tags/0', message: '5 is not of type "string"' },
    { path: '', message: 'something about the whole value' },
  ];
  it('puts each error under its field, required errors under the missing child', () => {
    expect(errorsAt(errors, '/email', 'email')).toEqual(['required']);
    expect(errorsAt(errors, '/age', 'age')).toEqual(['200 is greater than the maximum of 150']);
    expect(errorsAt(errors, '/home', 'home')).toEqual([]);
    expect(errorsAt(errors, '/home/street', 'street')).toEqual(['required']);
  });
  it('leaves the rest for the top of the form', () => {
    expect(unclaimedErrors(form, errors).map((e) => e.message)).toEqual(['something about the whole value']);
  });
  it('escapes pointer segments', () => {
    expect(childPointer('', 'a/b~c')).toBe('/a~1b~0c');
  });
});

describe('inputs', () => {
  it('parses numbers, empty meaning not set', () => {
    expect(parseNumber('', false)).toEqual({});
    expect(parseNumber('4.5', false)).toEqual({ value: 4.5 });
    expect(parseNumber('4.5', true)).toEqual({ error: 'must be an integer' });
    expect(parseNumber('x', false)).toEqual({ error: 'not a number' });
  });
  it('checks bounds for instant feedback', () => {
    const age = (form.kind.type === 'object' && form.kind.fields[1]) as FormField;
    expect(boundErrors(age, 200)).toEqual(['must be ≤ 150']);
    expect(boundErrors(str('n', { required: true }), undefined)).toEqual(['required']);
    expect(boundErrors({ ...str('s'), kind: { type: 'string', min_length: 3 } }, 'ab')).toEqual(['at least 3 characters']);
    expect(boundErrors(str('s', { nullable: true }), null)).toEqual([]);
  });
  it('maps optional booleans to not set / true / false', () => {
    expect(toTriState(undefined)).toBe('unset');
    expect(toTriState(true)).toBe('true');
    expect(toTriState(false)).toBe('false');
    expect(fromTriState('unset')).toBeUndefined();
    expect(fromTriState('false')).toBe(false);
  });
  it('chooses inputs for formats and converts date-times', () => {
    expect(inputTypeFor('email')).toBe('email');
    expect(inputTypeFor('uri')).toBe('url');
    expect(inputTypeFor('date-time')).toBe('datetime-local');
    expect(inputTypeFor(undefined)).toBe('text');
    expect(dateTimeToLocalInput('2026-01-02T03:04:05Z')).toBe('2026-01-02T03:04:05');
    expect(localInputToDateTime('2026-01-02T03:04')).toBe('2026-01-02T03:04:00Z');
    expect(localInputToDateTime('')).toBeUndefined();
  });
  it('finds select options by JSON value', () => {
    expect(optionIndex([{ value: 1 }, { value: '1' }], '1')).toBe(1);
    expect(optionIndex([{ value: { a: 1 } }], { a: 1 })).toBe(0);
    expect(optionIndex([{ value: 1 }], undefined)).toBe(-1);
  });
});

describe('JSON editor text', () => {
  it('parses without re-escaping and reports errors', () => {
    expect(parseJsonText('{"a": "x\\"y"}')).toEqual({ value: { a: 'x"y' } });
    expect(parseJsonText('   ')).toEqual({});
    expect(parseJsonText('{"a":').error).toBeTruthy();
  });
});

describe('promptArgumentsSchema', () => {
  it('makes a string property per argument', () => {
    expect(
      promptArgumentsSchema([
        { name: 'pr', description: 'PR', required: true },
        { name: 'style' },
      ]),
    ).toEqual({
      type: 'object',
      properties: { pr: { type: 'string', description: 'PR' }, style: { type: 'string' } },
      required: ['pr'],
    });
  });
});
