// Secret values of catalog entries (stdio env, HTTP headers) as the server form edits them.
// The backend keeps them in the secret store: the entry holds {"secretRef": key}; a new value is
// sent as {"secret": value} (docs/web-api.md, Catalog). The form shows stored ones masked, and
// sends the reference back unchanged unless the person typed a new value.

/** A value in a catalog entry's env or headers. */
export type EntryValue = string | { secretRef: string } | { secret: string };

/** What the form shows in place of a stored secret. */
export const STORED = '••••••';

export function isRef(v: EntryValue | undefined): v is { secretRef: string } {
  return typeof v === 'object' && v !== null && typeof (v as { secretRef?: unknown }).secretRef === 'string';
}

/** Split entry values into the plain ones and the secret ones (masked), as `KEY<sep>value` lines. */
export function splitSecrets(obj: Record<string, EntryValue> | undefined, sep: '=' | ': '): { plain: string; secret: string } {
  const plain: string[] = [];
  const secret: string[] = [];
  for (const [k, v] of Object.entries(obj ?? {})) {
    if (typeof v === 'string') plain.push(`${k}${sep}${v}`);
    else if (isRef(v)) secret.push(`${k}${sep}${STORED}`);
    else secret.push(`${k}${sep}${v.secret}`);
  }
  return { plain: plain.join('\n'), secret: secret.join('\n') };
}

/** `KEY<sep>value` lines into pairs (lines without the separator are ignored). */
export function parsePairs(text: string, sep: '=' | ':'): [string, string][] {
  const out: [string, string][] = [];
  for (const line of text.split('\n')) {
    const i = line.indexOf(sep);
    if (i > 0) out.push([line.slice(0, i).trim(), line.slice(i + 1).trim()]);
  }
  return out;
}

/**
 * The entry's values from the two text areas: plain lines as strings; secret lines as the stored
 * reference when left masked, else as a new `{secret}` to store.
 */
export function joinSecrets(
  plain: string,
  secret: string,
  sep: '=' | ':',
  original: Record<string, EntryValue> | undefined,
): Record<string, EntryValue> {
  const out: Record<string, EntryValue> = {};
  for (const [k, v] of parsePairs(plain, sep)) out[k] = v;
  for (const [k, v] of parsePairs(secret, sep)) {
    const before = original?.[k];
    out[k] = v === STORED && isRef(before) ? { secretRef: before.secretRef } : { secret: v };
  }
  return out;
}
