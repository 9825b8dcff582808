// What went wrong, as one line for a person or a log: an Error's message, or — for anything else
// thrown (a string, a rejected value, an object) — its text, never `undefined`.
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
