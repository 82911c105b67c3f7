import { CONTROLLER_VARIABLES } from "./controller-env";
import { type Variable, variablesOf } from "./declare";
import { OAH_VARIABLES } from "./variables";

/** The lines of docs/operations.md between which the table stands (the first names its source). */
export const CONFIG_TABLE_BEGIN =
  "<!-- config-table:begin (generated from packages/config/src/variables.ts: npm run docs:config) -->";
export const CONFIG_TABLE_END = "<!-- config-table:end -->";

/** Every variable of oah's processes, in the order of their sections. */
export const ALL_VARIABLES: readonly Variable<unknown>[] = [
  ...variablesOf(OAH_VARIABLES),
  ...variablesOf(CONTROLLER_VARIABLES),
];

/** The configuration table: one per section, a row per variable (its name, default and meaning). */
export function renderConfigTable(variables: readonly Variable<unknown>[] = ALL_VARIABLES): string {
  const sections = [...new Set(variables.map((v) => v.section))];
  return sections
    .map((title) =>
      [
        `#### ${title}`,
        "",
        "| variable | default | meaning |",
        "|---|---|---|",
        ...variables
          .filter((v) => v.section === title)
          .map((v) => `| \`${v.name}\` | ${v.shownDefault} | ${v.description.replaceAll("|", "\\|")} |`),
      ].join("\n"),
    )
    .join("\n\n");
}

/** `doc` with the text between the table's markers replaced by `table`; throws without both markers. */
export function withConfigTable(doc: string, table = renderConfigTable()): string {
  const begin = doc.indexOf(CONFIG_TABLE_BEGIN);
  const end = doc.indexOf(CONFIG_TABLE_END, begin);
  if (begin === -1 || end === -1) throw new Error(`no "${CONFIG_TABLE_BEGIN}" … "${CONFIG_TABLE_END}" block`);
  return `${doc.slice(0, begin + CONFIG_TABLE_BEGIN.length)}\n${table}\n${doc.slice(end)}`;
}
