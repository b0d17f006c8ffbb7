import { describe, expect, it } from 'vitest';
import { STORED, joinSecrets, splitSecrets } from './secrets';

describe('secret entry values', () => {
  const original = { PLAIN: 'visible', TOKEN: { secretRef: 'catalog-value/abc' } };

  it('shows stored secrets masked and plain values as they are', () => {
    const { plain, secret } = splitSecrets(original, '=');
    expect(plain).toBe('PLAIN=visible');
    expect(secret).toBe(`TOKEN=${STORED}`);
    expect(secret).not.toContain('catalog-value');
  });

  it('keeps the reference of a secret left masked, stores a retyped one', () => {
    expect(joinSecrets('PLAIN=visible', `TOKEN=${STORED}`, '=', original)).toEqual({
      PLAIN: 'visible',
      TOKEN: { secretRef: 'catalog-value/abc' },
    });
    expect(joinSecrets('', 'TOKEN=new-value', '=', original)).toEqual({ TOKEN: { secret: 'new-value' } });
  });

  it('a new secret line becomes {secret}; the mask without a stored value is taken literally', () => {
    expect(joinSecrets('', 'API_KEY=k1', '=', undefined)).toEqual({ API_KEY: { secret: 'k1' } });
    expect(joinSecrets('', `OTHER=${STORED}`, '=', original)).toEqual({ OTHER: { secret: STORED } });
  });

  it('headers use ": " to show and ":" to parse', () => {
    const h = { 'X-Key': { secretRef: 'catalog-value/h' }, Accept: 'text/plain' };
    const { plain, secret } = splitSecrets(h, ': ');
    expect(plain).toBe('Accept: text/plain');
    expect(joinSecrets(plain, secret, ':', h)).toEqual(h);
  });
});
