// @module-tag unit

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../src/paths";

const read = (path: string) => readFileSync(join(REPO_ROOT, path), "utf8");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (["node_modules", "dist", ".next", ".turbo", ".api-types"].includes(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|mts|lua|sh|mjs|sql)$/.test(entry.name) ? [path] : [];
  });
}

/** Where code comments cite the spec: every source, test, script and migration of the repository. */
const CITING_DIRS = ["packages", "apps", "bench", "scripts", "playwright", "drizzle"];

/**
 * The sections of docs/spec.md a text cites, each with the style it is cited in: `docs/spec.md §n`
 * (the one style), or `SPEC §n` and the like; a list (`§9, §13 and §2`) cites each of its sections.
 */
function specCitations(text: string): { style: string; section: string }[] {
  return [...text.matchAll(/(docs\/spec\.md|\bspec\b) §(\d+)((?:(?:, | and )§\d+)*)/gi)].flatMap((m) =>
    [m[2]!, ...[...m[3]!.matchAll(/§(\d+)/g)].map((more) => more[1]!)].map((section) => ({
      style: m[1]!,
      section,
    })),
  );
}

/** The Markdown documents whose links must hold: the README, docs/, and the READMEs beside code. */
function markdownDocuments(): string[] {
  const docs = (dir: string): string[] =>
    readdirSync(join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return docs(path);
      return entry.name.endsWith(".md") ? [path] : [];
    });
  return ["README.md", ...docs("docs"), "bench/README.md", "playwright/README.md"];
}

/** The text a reader sees as prose: fenced code blocks and inline code left out (their brackets are not links). */
function prose(markdown: string): string {
  return markdown.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, "").replace(/`[^`\n]*`/g, "");
}

/** Every inline link and image target of a Markdown text, in order. */
function linkTargets(markdown: string): string[] {
  return [...prose(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(
    (m) => m[1]!,
  );
}

/**
 * The anchors GitHub gives a document's headings: the heading's text without its formatting,
 * lowercased, its punctuation dropped (but `-` and `_`), spaces made `-`; a repeated one gets
 * `-1`, `-2`, … in order.
 */
function headingAnchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of markdown
    .replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, "")
    .matchAll(/^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/gm)) {
    const text = match[1]!
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/<[^>]+>/g, "")
      .trim()
      .toLowerCase();
    const slug = text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** What is wrong with each relative link of `file` (a path from the root): a missing file, or an anchor no heading has. */
function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const target of linkTargets(read(file))) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: and other schemes
    const hash = target.indexOf("#");
    const path = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
    const anchor = hash < 0 ? "" : decodeURIComponent(target.slice(hash + 1));
    const resolved = path === "" ? join(REPO_ROOT, file) : resolve(dirname(join(REPO_ROOT, file)), path);
    if (!resolved.startsWith(REPO_ROOT) || !existsSync(resolved)) {
      broken.push(`${file}: ${target} (no such file)`);
      continue;
    }
    if (anchor !== "" && resolved.endsWith(".md")) {
      if (!headingAnchors(readFileSync(resolved, "utf8")).has(anchor))
        broken.push(`${file}: ${target} (no heading #${anchor} in ${relative(REPO_ROOT, resolved)})`);
    }
  }
  return broken;
}

describe("the design documents", () => {
  it("code cites the spec in one style, `docs/spec.md §n`, and only sections docs/spec.md has", () => {
    const sections = new Set([...read("docs/spec.md").matchAll(/^## (\d+)\./gm)].map((m) => m[1]!));
    // This file's own examples of the styles are not citations.
    const files = CITING_DIRS.flatMap((dir) => sourceFiles(join(REPO_ROOT, dir))).filter(
      (file) => file !== join(REPO_ROOT, "packages/testing/test/design-docs.test.ts"),
    );
    const citations = files.flatMap((file) =>
      specCitations(readFileSync(file, "utf8")).map((c) => ({ file: relative(REPO_ROOT, file), ...c })),
    );
    expect(citations.filter((c) => c.style === "docs/spec.md").length).toBeGreaterThan(100);
    expect(citations.filter((c) => c.style !== "docs/spec.md")).toEqual([]);
    expect(citations.filter((c) => !sections.has(c.section))).toEqual([]);
  });

  it("finds every citation of the spec, in either style, with each section of a list", () => {
    expect(
      specCitations(
        "// docs/spec.md §7\n/** (SPEC §12: 15 s) */\n-- docs/spec.md §9, §13 and §2.\n# spec §4; §5 alone",
      ),
    ).toEqual([
      { style: "docs/spec.md", section: "7" },
      { style: "SPEC", section: "12" },
      { style: "docs/spec.md", section: "9" },
      { style: "docs/spec.md", section: "13" },
      { style: "docs/spec.md", section: "2" },
      { style: "spec", section: "4" },
    ]);
  });

  it("every path docs/architecture.md names exists, and the README links to it", () => {
    const named = [
      ...read("docs/architecture.md").matchAll(/`((?:packages|apps|docs|drizzle|bench)\/[^`*<>\s]+)`/g),
    ].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(30);
    expect(named.filter((path) => !existsSync(join(REPO_ROOT, path)))).toEqual([]);
    expect(read("README.md")).toContain("docs/architecture.md");
  });

  it("every relative link and image of the README, docs/ and the READMEs beside code resolves, anchors included", () => {
    const files = markdownDocuments();
    expect(files).toEqual(expect.arrayContaining(["docs/spec.md", "docs/operations.md", "bench/README.md"]));
    expect(files.flatMap((file) => linkTargets(read(file))).length).toBeGreaterThan(50);
    expect(files.flatMap(brokenLinks)).toEqual([]);
  });

  it("finds links and anchors as GitHub does", () => {
    expect(
      linkTargets(
        '[a](x.md) ![b](img/c.png) [d](<y.md#z> "t") `[e](not-a-link)` [f](https://e.com)\n```\n[g](h)\n```\n',
      ),
    ).toEqual(["x.md", "img/c.png", "y.md#z", "https://e.com"]);
    expect([
      ...headingAnchors(
        "# oah\n## 6. Execution, cancel, timeouts, commands\n### The `script` executor\n## A worker host's local data\n## The fleet: `oah-controller`\n## Modes\n## Modes\n```\n## not a heading\n```\n",
      ),
    ]).toEqual([
      "oah",
      "6-execution-cancel-timeouts-commands",
      "the-script-executor",
      "a-worker-hosts-local-data",
      "the-fleet-oah-controller",
      "modes",
      "modes-1",
    ]);
  });

  it("the README is a front door: at most 300 lines", () => {
    expect(read("README.md").split("\n").length).toBeLessThanOrEqual(300);
  });
});
