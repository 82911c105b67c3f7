/** Everything an iteration yields, until it ends (Node 20 has no `Array.fromAsync`). */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const seen: T[] = [];
  for await (const item of items) seen.push(item);
  return seen;
}
