import { describe, expect, it } from 'vitest';
import { encodeValue, expandTemplate, templateComplete, templateVariables } from './uriTemplate';

// The examples of RFC 6570 §1.2 / §3.
const values = {
  var: 'value',
  hello: 'Hello World!',
  path: '/foo/bar',
  empty: '',
  x: '1024',
  y: '768',
  list: ['red', 'green', 'blue'],
  keys: [
    ['semi', ';'],
    ['dot', '.'],
    ['comma', ','],
  ] as [string, string][],
  undef: undefined,
};

describe('expandTemplate (RFC 6570)', () => {
  it.each([
    ['{var}', 'value'],
    ['{hello}', 'Hello%20World%21'],
    ['{+hello}', 'Hello%20World!'],
    ['{+path}/here', '/foo/bar/here'],
    ['{#hello}', '#Hello%20World!'],
    ['X{.var}', 'X.value'],
    ['X{.x,y}', 'X.1024.768'],
    ['{/var,x}/here', '/value/1024/here'],
    ['{;x,y}', ';x=1024;y=768'],
    ['{;x,y,empty}', ';x=1024;y=768;empty'],
    ['{?x,y}', '?x=1024&y=768'],
    ['{?x,y,empty}', '?x=1024&y=768&empty='],
    ['?fixed=yes{&x}', '?fixed=yes&x=1024'],
    ['{var:3}', 'val'],
    ['{list}', 'red,green,blue'],
    ['{list*}', 'red,green,blue'],
    ['{/list*}', '/red/green/blue'],
    ['{?list*}', '?list=red&list=green&list=blue'],
    ['{keys}', 'semi,%3B,dot,.,comma,%2C'],
    ['{keys*}', 'semi=%3B,dot=.,comma=%2C'],
    ['{?keys*}', '?semi=%3B&dot=.&comma=%2C'],
    ['{undef}', ''],
    ['{?undef,x}', '?x=1024'],
    ['{x,hello,y}', '1024,Hello%20World%21,768'],
  ])('%s → %s', (template, expected) => {
    expect(expandTemplate(template, values)).toBe(expected);
  });

  it('expands the demo templates', () => {
    expect(expandTemplate('demo://greeting/{name}', { name: 'Ada' })).toBe('demo://greeting/Ada');
    expect(expandTemplate('demo://files/{path}', { path: 'docs/guide.md' })).toBe('demo://files/docs%2Fguide.md');
    expect(expandTemplate('demo://files/{+path}', { path: 'docs/guide.md' })).toBe('demo://files/docs/guide.md');
  });

  it('encodes non-ASCII as UTF-8', () => {
    expect(encodeValue('é', false)).toBe('%C3%A9');
    expect(encodeValue('%41', true)).toBe('%41');
    expect(encodeValue('%41', false)).toBe('%2541');
  });

  it('lists variables once, in order', () => {
    expect(templateVariables('a{/x,y}{?y,z*}{w:3}')).toEqual(['x', 'y', 'z', 'w']);
    expect(templateVariables('no-vars')).toEqual([]);
  });

  it('knows when every variable is filled', () => {
    expect(templateComplete('u/{a}/{b}', { a: '1', b: '' })).toBe(false);
    expect(templateComplete('u/{a}/{b}', { a: '1', b: '2' })).toBe(true);
  });
});
