// Sign-in attempts per peer address: a window of a minute, a few dozen attempts — enough for a
// household, too few to guess anything (a passkey cannot be guessed; this bounds the work a flood
// makes the server do, and invite tokens being tried).

export class AttemptLimit {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly perMinute = 30,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when this peer may try again now (the attempt is counted). */
  take(peer: string): boolean {
    const now = this.now();
    if (this.windows.size > 10_000) for (const [key, window] of this.windows) if (now - window.start >= 60_000) this.windows.delete(key);
    const window = this.windows.get(peer);
    if (!window || now - window.start >= 60_000) {
      this.windows.set(peer, { start: now, count: 1 });
      return true;
    }
    window.count += 1;
    return window.count <= this.perMinute;
  }
}
