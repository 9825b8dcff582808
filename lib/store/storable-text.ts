// Text the app generates (tool output, model replies, errors) as the store keeps it. PostgreSQL's
// text cannot hold NUL, the JSONL logs and most tools choke on it, and an export holding one could
// not be imported again — so a NUL becomes U+2400 (␀, the symbol for null) where the text is
// stored, and in exports of rows stored before this rule. The model then reads the same ␀ it would
// read after a restart. Lone surrogates and invalid UTF-8 need nothing here: the drivers already
// store them as U+FFFD, so what is read back is what is exported, imported and exported again.
export const NUL_STAND_IN = '\u2400';

export function storableText(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', NUL_STAND_IN) : text;
}

export function storableNullableText(text: string | null): string | null {
  return text === null ? null : storableText(text);
}

/** Every string inside a JSON-like value made storable (object keys too). */
export function storableDeep<T>(value: T): T {
  if (typeof value === 'string') return storableText(value) as T;
  if (Array.isArray(value)) return value.map((item) => storableDeep(item)) as T;
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [storableText(key), storableDeep(item)])) as T;
  }
  return value;
}
