// @module-tag unit

import { describe, expect, it } from "vitest";
import { ABILITIES, type Ability, AUDIT_ACTIONS, auditRateLimited, may, ROLES, type Role } from "../src";

// Role by role, every ability (docs/spec.md §13): what each may do, and nothing more.
const TABLE: Record<Role, readonly Ability[]> = {
  submitter: ["submit", "readRuns", "cancel", "fork"],
  viewer: ["readRuns", "view"],
  operator: ["readRuns", "cancel", "fork", "view", "operate"],
  admin: ["submit", "readRuns", "cancel", "fork", "view", "operate", "administer"],
};

describe("roles", () => {
  it.each(ROLES.flatMap((role) => ABILITIES.map((ability) => [role, ability] as const)))(
    "%s may %s: as the table says",
    (role, ability) => {
      expect(may(role, ability)).toBe(TABLE[role].includes(ability));
    },
  );

  it("an operator may do whatever a viewer may, an admin whatever anyone may", () => {
    for (const ability of ABILITIES) {
      if (may("viewer", ability)) expect(may("operator", ability)).toBe(true);
      for (const role of ROLES) if (may(role, ability)) expect(may("admin", ability)).toBe(true);
    }
  });
});

describe("the audited actions a token may make a minute", () => {
  // A run's own client (its cancel, its tool results, its forks, its messages) makes as many as its runs need.
  const UNLIMITED = ["run.cancel", "run.interrupt", "run.tool_result", "run.fork", "run.message"];

  it.each(AUDIT_ACTIONS.map((action) => [action, !UNLIMITED.includes(action)] as const))(
    "%s: limited %s",
    (action, limited) => {
      expect(auditRateLimited(action)).toBe(limited);
    },
  );
});
