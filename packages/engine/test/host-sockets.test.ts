// @module-tag unit

import { describe, expect, it } from "vitest";
import { boundSocketPaths } from "../src";

describe("the sockets of /proc/net/unix", () => {
  it("keeps the paths, once each, and leaves out abstract and unnamed sockets", () => {
    const table = [
      "Num       RefCount Protocol Flags    Type St Inode Path",
      "0000000000000000: 00000002 00000000 00010000 0001 01 21730 /run/postgresql/.s.PGSQL.5432",
      "0000000000000000: 00000003 00000000 00000000 0001 03 21731 /run/postgresql/.s.PGSQL.5432",
      "0000000000000000: 00000002 00000000 00010000 0001 01 21732 @/tmp/.X11-unix/X0",
      "0000000000000000: 00000003 00000000 00000000 0001 03 21733",
      "0000000000000000: 00000002 00000000 00010000 0001 01 21734 /var/lib/my service/socket",
      "",
    ].join("\n");
    expect(boundSocketPaths(table)).toEqual(["/run/postgresql/.s.PGSQL.5432", "/var/lib/my service/socket"]);
  });
});
