import { setTimeout as sleep } from "node:timers/promises";
import { childrenOf, namespaceMembers, pidNamespaceOf } from "./process-table";

const POLL_MS = 2;
/** How long the search for a jail's namespace goes on: bwrap makes it within milliseconds. */
const FIND_MS = 2_000;

/**
 * The pid namespace of one jail, found while it runs, so that its end can be awaited.
 * bwrap's outer process exits as soon as the command's status is known, while the kernel
 * may still be killing what else ran in the namespace (children that escaped the command's
 * group): a result reported before they are gone would let a re-execution overlap them.
 */
export class JailNamespace {
  private namespace: string | null = null;
  private searching = true;

  constructor(private readonly outer: number) {
    void this.find();
  }

  private async find(): Promise<void> {
    const ours = pidNamespaceOf(process.pid);
    const deadline = Date.now() + FIND_MS;
    while (this.searching && Date.now() < deadline) {
      for (const child of childrenOf(this.outer)) {
        const namespace = pidNamespaceOf(child);
        if (namespace !== null && namespace !== ours) {
          this.namespace = namespace;
          return;
        }
      }
      await sleep(POLL_MS);
    }
  }

  /** Resolves once no process of the jail is left, or after `timeoutMs`. */
  async gone(timeoutMs: number): Promise<void> {
    this.searching = false;
    const { namespace } = this;
    if (namespace === null) return;
    const deadline = Date.now() + timeoutMs;
    while (namespaceMembers(namespace).length > 0 && Date.now() < deadline) await sleep(POLL_MS);
  }
}
