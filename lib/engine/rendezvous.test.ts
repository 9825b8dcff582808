// Placement's arithmetic (rendezvous.ts): even and weighted shares, few moves on a join, a leave
// spread over every survivor, the same answer from any member.
import { describe, expect, it } from 'vitest';
import { assign, preferredOwner } from './rendezvous';

const keys = Array.from({ length: 240 }, (_, index) => `session-${index}`);
const members = (...names: string[]) => names.map((owner) => ({ owner, capacity: 1 }));
const counts = (map: Map<string, string>) => {
  const result: Record<string, number> = {};
  for (const owner of map.values()) result[owner] = (result[owner] ?? 0) + 1;
  return result;
};
const moved = (before: Map<string, string>, after: Map<string, string>) => [...after].filter(([key, owner]) => before.get(key) !== owner);

describe('rendezvous placement', () => {
  it('spreads evenly, and by declared capacity', () => {
    expect(counts(assign(keys.slice(0, 24), members('a', 'b', 'c')))).toEqual({ a: 8, b: 8, c: 8 });
    expect(counts(assign(keys, [{ owner: 'a', capacity: 1 }, { owner: 'b', capacity: 3 }]))).toEqual({ a: 60, b: 180 });
    // Capacity 0 holds nothing while another member can; alone, it holds everything.
    expect(counts(assign(keys.slice(0, 10), [{ owner: 'pages', capacity: 0 }, { owner: 'w', capacity: 1 }]))).toEqual({ w: 10 });
    expect(counts(assign(keys.slice(0, 10), [{ owner: 'pages', capacity: 0 }]))).toEqual({ pages: 10 });
  });

  it('a member joining takes exactly its share and nothing else moves', () => {
    const before = assign(keys, members('a', 'b', 'c'));
    const after = assign(keys, members('a', 'b', 'c', 'd'), before);
    expect(counts(after)).toEqual({ a: 60, b: 60, c: 60, d: 60 });
    expect(moved(before, after).every(([, owner]) => owner === 'd')).toBe(true);
    expect(moved(before, after)).toHaveLength(60);
  });

  it("a member leaving has its keys spread over every survivor, no survivor taking more than its room", () => {
    const before = assign(keys, members('a', 'b', 'c', 'd'));
    const live = new Map([...before].filter(([, owner]) => owner !== 'd'));
    const after = assign(keys, members('a', 'b', 'c'), live);
    const taken = counts(new Map(moved(before, after)));
    expect(taken).toEqual({ a: 20, b: 20, c: 20 });
    // Two survivors of three: each takes half.
    const three = assign(keys.slice(0, 24), members('a', 'b', 'c'));
    const two = assign(keys.slice(0, 24), members('a', 'b'), new Map([...three].filter(([, owner]) => owner !== 'c')));
    expect(counts(new Map(moved(three, two)))).toEqual({ a: 4, b: 4 });
  });

  it('every member computes the same map, whatever order it lists the members in', () => {
    const current = assign(keys.slice(0, 50), members('a', 'b'));
    expect(assign(keys.slice(0, 50), members('c', 'b', 'a'), current)).toEqual(assign(keys.slice(0, 50), members('a', 'b', 'c'), current));
    expect(preferredOwner('x', members('b', 'a'))).toBe(preferredOwner('x', members('a', 'b')));
  });
});
