// @module-tag unit

import { describe, expect, it } from "vitest";
import { type CgroupMounts, cgroupMounts, chooseCgroupHome } from "../src";

const line = (mountPoint: string, type: string, superOptions: string) =>
  `35 31 0:32 / ${mountPoint} rw,relatime shared:9 - ${type} ${type} ${superOptions}`;

describe("the cgroup mounts of /proc/self/mountinfo", () => {
  it.each<[string, string[], CgroupMounts]>([
    [
      "cgroup v2 alone (systemd's default)",
      [line("/sys/fs/cgroup", "cgroup2", "rw,nsdelegate")],
      { v2: "/sys/fs/cgroup", v1: { memory: null, pids: null } },
    ],
    [
      "hybrid: v1 controllers, and a v2 hierarchy beside them",
      [
        line("/sys/fs/cgroup/memory", "cgroup", "rw,memory"),
        line("/sys/fs/cgroup/pids", "cgroup", "rw,pids"),
        line("/sys/fs/cgroup/cpu,cpuacct", "cgroup", "rw,cpu,cpuacct"),
        line("/sys/fs/cgroup/unified", "cgroup2", "rw"),
      ],
      { v2: "/sys/fs/cgroup/unified", v1: { memory: "/sys/fs/cgroup/memory", pids: "/sys/fs/cgroup/pids" } },
    ],
    [
      "none",
      [line("/", "ext4", "rw"), line("/tmp", "tmpfs", "rw,size=1024k")],
      { v2: null, v1: { memory: null, pids: null } },
    ],
  ])("%s", (_name, lines, mounts) => {
    expect(cgroupMounts(lines.join("\n"))).toEqual(mounts);
  });
});

describe("which hierarchy caps a jail", () => {
  const v2 = { v2: "/sys/fs/cgroup", v1: { memory: null, pids: null } };
  const hybrid = {
    v2: "/sys/fs/cgroup/unified",
    v1: { memory: "/sys/fs/cgroup/memory", pids: "/sys/fs/cgroup/pids" },
  };
  it.each<[string, CgroupMounts, string[], ReturnType<typeof chooseCgroupHome>]>([
    [
      "v2 with its memory controller",
      v2,
      ["cpu", "memory", "pids"],
      { home: { version: 2, dir: "/sys/fs/cgroup/oah-steps" } },
    ],
    [
      "v2 without it",
      v2,
      ["cpu", "pids"],
      {
        home: null,
        cause: "the cgroup v2 hierarchy at /sys/fs/cgroup offers no memory controller (it offers: cpu pids)",
      },
    ],
    [
      "hybrid: v1's memory, since v2 has none",
      hybrid,
      ["hugetlb"],
      {
        home: {
          version: 1,
          memory: "/sys/fs/cgroup/memory/oah-steps",
          pids: "/sys/fs/cgroup/pids/oah-steps",
        },
      },
    ],
    [
      "v1's memory without its pids",
      { v2: null, v1: { memory: "/cg/memory", pids: null } },
      [],
      { home: { version: 1, memory: "/cg/memory/oah-steps", pids: null } },
    ],
    [
      "nothing mounted",
      { v2: null, v1: { memory: null, pids: null } },
      [],
      { home: null, cause: "no cgroup hierarchy is mounted" },
    ],
  ])("%s", (_name, mounts, controllers, chosen) => {
    expect(chooseCgroupHome(mounts, controllers)).toEqual(chosen);
  });
});
