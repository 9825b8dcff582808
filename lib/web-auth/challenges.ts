// The challenges this process handed out for a passkey ceremony, each good for one answer within
// five minutes. Kept in memory: a ceremony's two requests reach the same process (several web
// processes behind a balancer need it sticky — docs/people-on-the-web.md).

export type Ceremony = { purpose: 'register'; personId: string; invite?: string } | { purpose: 'login' };

const TTL_MS = 5 * 60_000;
const MAX = 2000;

export class Challenges {
  private readonly open = new Map<string, { ceremony: Ceremony; expires: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  remember(challenge: string, ceremony: Ceremony): void {
    const now = this.now();
    for (const [key, entry] of this.open) if (entry.expires <= now || this.open.size >= MAX) this.open.delete(key);
    this.open.set(challenge, { ceremony, expires: now + TTL_MS });
  }

  /** The ceremony a challenge was made for, once: a second answer to it finds nothing. */
  take(challenge: string): Ceremony | undefined {
    const entry = this.open.get(challenge);
    this.open.delete(challenge);
    return entry && entry.expires > this.now() ? entry.ceremony : undefined;
  }
}

/** The challenge a browser's answer signed (from its client data), or undefined when it is not readable. */
export function challengeOf(response: { response?: { clientDataJSON?: unknown } }): string | undefined {
  const data = response.response?.clientDataJSON;
  if (typeof data !== 'string' || data.length > 4096) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(data, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof parsed.challenge === 'string' ? parsed.challenge : undefined;
  } catch {
    return undefined;
  }
}
