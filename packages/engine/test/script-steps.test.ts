// @module-tag unit

import { STEP_TYPES } from "@oah/contract";
import { describe, expect, it } from "vitest";
import { STEP_HANDLERS } from "../src/executors/script/script-executor";

describe("the script executor's steps", () => {
  it("has one handler for each step type of the schema, and none for a type it does not have", () => {
    expect(Object.keys(STEP_HANDLERS).sort()).toEqual([...STEP_TYPES].sort());
  });
});
