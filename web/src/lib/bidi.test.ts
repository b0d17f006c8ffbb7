import { describe, expect, it } from 'vitest';
import { showBidi } from './bidi';

describe('showBidi', () => {
  it('shows every bidi control and leaves other text alone', () => {
    expect(showBidi('invoice\u202Eexe.pdf')).toBe('invoice⟦U+202E⟧exe.pdf');
    expect(showBidi('\u2066a\u2069 \u200F \u061C')).toBe('⟦U+2066⟧a⟦U+2069⟧ ⟦U+200F⟧ ⟦U+061C⟧');
    expect(showBidi('עברית and العربية stay as they are')).toBe('עברית and العربية stay as they are');
  });
});
