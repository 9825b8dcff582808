// Weighted rendezvous (highest random weight) hashing: every member scores every session, the
// highest score holds it. Each member computes the same answer from the same member list, with no
// coordination; a member joining takes from each of the others only the sessions it now wins, and a
// member leaving gives only its own — each to whoever scored second, so they spread over all the
// survivors. The weight is a member's declared capacity (Schindelhauer & Schomaker's logarithmic
// method: score = weight / -ln(u), u uniform in (0, 1) from the hash of session and member).
import { createHash } from 'node:crypto';

export interface Weighted {
  owner: string;
  /** Relative share of sessions (AGENTCSD_CAPACITY); 0 holds none while a member with more is alive. */
  capacity: number;
}

/** A uniform number in (0, 1) from the pair: 52 bits of its SHA-256. */
function unit(key: string, owner: string): number {
  const digest = createHash('sha256').update(key).update('\0').update(owner).digest();
  const high = digest.readUInt32BE(0) >>> 12; // 20 bits
  const low = digest.readUInt32BE(4); // 32 bits
  return (high * 2 ** 32 + low + 0.5) / 2 ** 52;
}

export function score(key: string, member: Weighted): number {
  return member.capacity / -Math.log(unit(key, member.owner));
}

/**
 * The member that should hold the key, or null with no members. When every member declares 0
 * (pages only, say) they share alike rather than nobody holding anything.
 */
export function preferredOwner(key: string, members: readonly Weighted[]): string | null {
  const weighted = members.some((member) => member.capacity > 0) ? members.filter((member) => member.capacity > 0) : members.map((member) => ({ ...member, capacity: 1 }));
  let best: string | null = null;
  let bestScore = -1;
  for (const member of weighted) {
    const value = score(key, member);
    // Ties (never in practice) go to the smaller name, so every member agrees.
    if (value > bestScore || (value === bestScore && best !== null && member.owner < best)) {
      best = member.owner;
      bestScore = value;
    }
  }
  return best;
}

/**
 * Every key's holder, balanced and sticky: each member's share is capped at its weighted share of
 * the keys, rounded up (plus `slack`) — consistent hashing with bounded loads (Mirrokni, Thorup &
 * Zadimoghaddam) on rendezvous scores — and a key stays with its current live holder while that
 * holder is within its cap, the ones it keeps being those it scores highest. The rest go, in key
 * order, to their best-scoring member with room. So a member joining takes exactly its share, from
 * the fullest; one leaving or dying has its keys spread over the others by their rooms; nothing
 * else moves. Deterministic in keys, members and current holders: every member computes the same.
 */
export function assign(keys: readonly string[], members: readonly Weighted[], current: ReadonlyMap<string, string> = new Map(), slack = 0): Map<string, string> {
  const result = new Map<string, string>();
  if (members.length === 0) return result;
  const weighted = members.some((member) => member.capacity > 0) ? members.filter((member) => member.capacity > 0) : members.map((member) => ({ ...member, capacity: 1 }));
  const total = weighted.reduce((sum, member) => sum + member.capacity, 0);
  const cap = new Map(weighted.map((member) => [member.owner, Math.ceil((keys.length * member.capacity) / total) + slack]));
  const load = new Map(weighted.map((member) => [member.owner, 0]));
  const sorted = [...keys].sort();
  // Kept: each live holder's keys, best-scoring first, up to its cap.
  for (const member of weighted) {
    const held = sorted
      .filter((key) => current.get(key) === member.owner)
      .map((key) => ({ key, value: score(key, member) }))
      .sort((a, b) => b.value - a.value);
    for (const { key } of held.slice(0, cap.get(member.owner))) result.set(key, member.owner);
    load.set(member.owner, Math.min(held.length, cap.get(member.owner)!));
  }
  for (const key of sorted) {
    if (result.has(key)) continue;
    const ranked = weighted.map((member) => ({ owner: member.owner, value: score(key, member) })).sort((a, b) => b.value - a.value || (a.owner < b.owner ? -1 : 1));
    const chosen = ranked.find((member) => load.get(member.owner)! < cap.get(member.owner)!) ?? ranked[0]!;
    result.set(key, chosen.owner);
    load.set(chosen.owner, load.get(chosen.owner)! + 1);
  }
  return result;
}
