/** Exhaustiveness for a switch over a union: a value no case took is a bug, said with the value. */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`Unexpected ${what}: ${JSON.stringify(value)}`);
}
