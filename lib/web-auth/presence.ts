// Who has a page open now (issue 61 §5): the socket server counts each person's connected pages;
// the push notifier leaves alone those who see it live already. Per process.
export class Presence {
  private readonly pages = new Map<string, number>();

  opened(personId: string): void {
    this.pages.set(personId, (this.pages.get(personId) ?? 0) + 1);
  }

  closed(personId: string): void {
    const left = (this.pages.get(personId) ?? 1) - 1;
    if (left <= 0) this.pages.delete(personId);
    else this.pages.set(personId, left);
  }

  has(personId: string): boolean {
    return this.pages.has(personId);
  }
}
