// JSON as Biome formats it (the repository's formatter, line width 110): objects
// one key a line, arrays of plain values on one line when they fit. So the
// results file the bench writes passes `biome check` as written.
const WIDTH = 110;

function isPlain(v: unknown): boolean {
  return v === null || typeof v !== "object";
}

function format(value: unknown, indent: string, prefixLength: number): string {
  if (isPlain(value)) return JSON.stringify(value ?? null);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    if (value.every(isPlain)) {
      const line = `[${value.map((v) => JSON.stringify(v ?? null)).join(", ")}]`;
      if (prefixLength + line.length + 1 <= WIDTH) return line;
    }
    return `[\n${value.map((v) => inner + format(v, inner, inner.length)).join(",\n")}\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return "{}";
  const lines = entries.map(([k, v]) => {
    const head = `${inner}${JSON.stringify(k)}: `;
    return head + format(v, inner, head.length);
  });
  return `{\n${lines.join(",\n")}\n${indent}}`;
}

export function formatJson(value: unknown): string {
  return `${format(value, "", 0)}\n`;
}
