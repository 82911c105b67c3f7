/** Work a host has handed off and must see through before it stops (terminal writes, releases). */
export class Settling {
  private readonly pending = new Set<Promise<unknown>>();

  track(work: Promise<unknown>): void {
    const settled = work.catch(() => {}).finally(() => this.pending.delete(settled));
    this.pending.add(settled);
  }

  async done(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }
}
