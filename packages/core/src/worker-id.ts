/**
 * A worker (an execution slot) is named after its host, `<hostId>/w<n>`: the store
 * records it on every run it starts, so that recovery knows which host executes a run
 * and whether that host's lease still lists it.
 */
export const workerIdOf = (hostId: string, n: number): string => `${hostId}/w${n}`;

/** The host of a worker id (`<hostId>/w<n>`); an id without a slot part names the host itself. */
export function hostOfWorker(workerId: string): string {
  const slash = workerId.lastIndexOf("/");
  return slash < 0 ? workerId : workerId.slice(0, slash);
}
