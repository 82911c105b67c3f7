// @module-tag unit

import type { StepNetwork } from "@oah/core";
import { describe, expect, it } from "vitest";
import { type JailPlan, jailArgv, outermost } from "../src";

const TOOLS = {
  setpriv: "/usr/bin/setpriv",
  bwrap: "/usr/bin/bwrap",
  prlimit: "/usr/bin/prlimit",
  unshare: "/usr/bin/unshare",
  mount: "/usr/bin/mount",
  ip: "/usr/sbin/ip",
  bash: "/usr/bin/bash",
};
const ROOT_HOST = { uid: 65534, gid: 65534, switchUser: true };
const USER_HOST = { uid: 1000, gid: 1000, switchUser: false };
const CGROUP = "/sys/fs/cgroup/memory/oah-steps/1-1/cgroup.procs";

const plan = (over: Partial<JailPlan> = {}): JailPlan => ({
  tools: TOOLS,
  user: ROOT_HOST,
  workspaceFd: 3,
  system: [
    { name: "usr" },
    { name: "bin", symlink: "usr/bin" },
    { name: "proc" },
    { name: "tmp" },
    { name: "run" },
    { name: "oah" },
    { name: "var" },
  ],
  hidden: ["/srv/oah/.openharness", "/srv/oah/.openharness/workspaces"],
  emptied: ["/run"],
  sockets: ["/var/lib/mysql/mysql.sock"],
  network: "on",
  refused: ["10.0.0.5", "192.0.2.2", "10.0.0.5"],
  networkFds: { info: 4, block: 5 },
  resolvConf: { fd: 6, path: "/etc/resolv.conf" },
  files: [{ fd: 7, name: "tool-results.json" }],
  cgroupProcs: [CGROUP],
  limits: { maxProcs: 256, maxFileBytes: 1024, cpuSeconds: 60, memoryBytes: 4096, maxOutputBytes: 8192 },
  command: "echo 'hi'; exit 3",
  ...over,
});

/** The arguments of one program of the command line (from the program to the next `--`). */
function part(argv: string[], program: keyof typeof TOOLS): string[] {
  const at = argv.indexOf(TOOLS[program]);
  if (at === -1) return [];
  return argv.slice(at + 1, argv.indexOf("--", at) + 1);
}

/** The host's stage: bash -c, its script, its arguments up to setpriv. */
const stageOf = (argv: string[]) => argv.slice(argv.indexOf(TOOLS.bash), argv.indexOf(TOOLS.setpriv));

const argvOf = (over: Partial<JailPlan> = {}) => {
  const { file, args } = jailArgv(plan(over));
  return [file, ...args];
};

describe("the jail's command line", () => {
  it("a root host: its own mount namespace first, then its stage, the jail user for good, bwrap, the limits, the command as one argument", () => {
    const argv = argvOf();
    expect(argv[0]).toBe(TOOLS.unshare);
    expect(part(argv, "unshare")).toEqual(["--mount", "--propagation", "private", "--net", "--"]);
    // The stage is given, each list its length first: the descriptors to keep, the cgroup to join,
    // the hidden directories (only the outermost ones), the sockets to cover, the refused addresses.
    expect(stageOf(argv).slice(3)).toEqual([
      "oah-sandbox",
      TOOLS.mount,
      TOOLS.ip,
      ...["5", "3", "4", "5", "6", "7"],
      ...["1", CGROUP],
      ...["1", "/srv/oah/.openharness"],
      ...["1", "/var/lib/mysql/mysql.sock"],
      ...["2", "10.0.0.5", "192.0.2.2"],
    ]);
    expect(part(argv, "setpriv")).toEqual([
      "--reuid=65534",
      "--regid=65534",
      "--clear-groups",
      "--no-new-privs",
      "--",
    ]);
    expect(part(argv, "prlimit")).toEqual([
      "--nproc=256",
      "--fsize=1024",
      "--cpu=60",
      "--data=4096",
      "--core=0",
      "--",
    ]);
    expect(argv.slice(-3)).toEqual(["/bin/sh", "-c", "echo 'hi'; exit 3"]);
  });

  it.each([
    ["on", [TOOLS.unshare, "--user", "--map-current-user", "--net", "--keep-caps", "--", TOOLS.bash]],
    ["off", [TOOLS.bash]],
    ["host", [TOOLS.bash]],
  ] as const)(
    "a host that is not root, network %s, stays its own user and gives up privileges: %j",
    (network, head) => {
      const argv = argvOf({
        user: USER_HOST,
        network,
        networkFds: network === "on" ? plan().networkFds : undefined,
        resolvConf: network === "on" ? plan().resolvConf : null,
      });
      expect(argv.slice(0, head.length)).toEqual(head);
      // What it kept for its stage (the routes) it gives up before bwrap, which refuses to start with any.
      expect(part(argv, "setpriv")).toEqual([
        ...(network === "on" ? ["--inh-caps=-all", "--ambient-caps=-all"] : []),
        "--no-new-privs",
        "--",
      ]);
      // Its stage closes descriptors and joins the cgroup, and mounts nothing: bwrap hides and covers.
      const kept = network === "on" ? ["5", "3", "4", "5", "6", "7"] : ["2", "3", "7"];
      const refused = network === "on" ? ["2", "10.0.0.5", "192.0.2.2"] : ["0"];
      expect(stageOf(argv).slice(3)).toEqual([
        "oah-sandbox",
        "-",
        network === "on" ? TOOLS.ip : "-",
        ...kept,
        ...["1", CGROUP],
        "0",
        "0",
        ...refused,
      ]);
      const bwrap = part(argv, "bwrap").join(" ");
      expect(bwrap).toContain("--uid 1000 --gid 1000");
      // It may pass through its own directories: bwrap binds the workspace's descriptor and hides the rest itself.
      expect(bwrap).toContain("--bind-fd 3 /workspace");
      expect(bwrap).toContain("--tmpfs /srv/oah/.openharness ");
      expect(bwrap).toContain("--remount-ro /srv/oah/.openharness ");
      expect(bwrap).toContain("--ro-bind /dev/null /var/lib/mysql/mysql.sock");
      expect(bwrap).not.toContain("/srv/oah/.openharness/workspaces");
    },
  );

  it("leaves to the workspace's bind over /tmp the hiding of what is under /tmp", () => {
    const argv = argvOf({ hidden: ["/tmp/oah/.openharness", "/srv/oah/.openharness"] });
    expect(stageOf(argv).slice(14, 16)).toEqual(["1", "/srv/oah/.openharness"]);
  });

  it("shows the system entry by entry on a root of its own, then /proc, a read-only /dev, the workspace, /tmp, an empty /run, the files", () => {
    const bwrap = part(argvOf(), "bwrap");
    const at = (...words: string[]) => bwrap.join(" ").indexOf(words.join(" "));
    expect(at("--ro-bind /usr /usr")).toBeGreaterThan(-1);
    expect(at("--symlink usr/bin /bin")).toBeGreaterThan(at("--ro-bind /usr /usr"));
    // The host's /proc, /tmp, /run and /oah are never shown: the jail makes its own.
    for (const own of ["/proc /proc", "/tmp /tmp", "/run /run", "/oah /oah"])
      expect(at("--ro-bind", own)).toBe(-1);
    expect(at("--proc /proc")).toBeGreaterThan(at("--symlink usr/bin /bin"));
    // /dev: the devices, a /dev/shm of bounded size, and nothing else to write.
    expect(at("--dev /dev --size 1024 --perms 1777 --tmpfs /dev/shm --remount-ro /dev")).toBeGreaterThan(
      at("--proc /proc"),
    );
    // The root stage bound the workspace over /tmp; bwrap moves it to /workspace, then covers /tmp.
    expect(at("--bind /tmp /workspace")).toBeGreaterThan(at("--remount-ro /dev"));
    expect(at("--size 1024 --tmpfs /tmp")).toBeGreaterThan(at("--bind /tmp /workspace"));
    expect(at("--tmpfs /run")).toBeGreaterThan(at("--tmpfs /tmp"));
    expect(at("--ro-bind-data 7 /oah/tool-results.json")).toBeGreaterThan(at("--tmpfs /run"));
    expect(at("--remount-ro /run")).toBeGreaterThan(at("--ro-bind-data 7"));
    expect(at("--remount-ro / --chdir")).toBeGreaterThan(at("--remount-ro /run"));
    // The root host covers sockets in its stage, as root.
    expect(at("/var/lib/mysql/mysql.sock")).toBe(-1);
    expect(bwrap.slice(-7)).toEqual(["--chdir", "/workspace", "--info-fd", "4", "--block-fd", "5", "--"]);
  });

  it.each<[StepNetwork, JailPlan["resolvConf"], string[], string[]]>([
    [
      "on",
      { fd: 6, path: "/etc/resolv.conf" },
      ["--ro-bind-data 6 /etc/resolv.conf", "--tmpfs /run", "--info-fd 4 --block-fd 5"],
      ["--unshare-net"],
    ],
    ["off", null, ["--unshare-net", "--tmpfs /run"], ["--info-fd", "--ro-bind-data 6"]],
    // With the host's network too, /run is empty: the host's resolv.conf is enough.
    [
      "host",
      { host: "/etc/resolv.conf" },
      ["--tmpfs /run", "--remount-ro /run"],
      ["--unshare-net", "--ro-bind /run /run", "resolv.conf", "--info-fd"],
    ],
  ])("network %s: %j present, %j absent", (network, resolvConf, present, absent) => {
    const argv = argvOf({
      network,
      resolvConf,
      networkFds: network === "on" ? plan().networkFds : undefined,
    });
    expect(part(argv, "unshare").includes("--net")).toBe(network === "on");
    const bwrap = part(argv, "bwrap").join(" ");
    for (const words of present) expect(bwrap).toContain(words);
    for (const words of absent) expect(bwrap).not.toContain(words);
    for (const always of [
      "--unshare-user",
      "--disable-userns",
      "--unshare-pid",
      "--die-with-parent",
      "--proc /proc",
    ])
      expect(bwrap).toContain(always);
  });

  it.each<[string, JailPlan["resolvConf"], string]>([
    [
      "writes the jail's",
      { fd: 6, path: "/run/systemd/resolve/stub-resolv.conf" },
      "--tmpfs /run --dir /run/systemd/resolve --ro-bind-data 6 /run/systemd/resolve/stub-resolv.conf",
    ],
    [
      "shows the host's own (network host)",
      { host: "/run/systemd/resolve/stub-resolv.conf" },
      "--tmpfs /run --dir /run/systemd/resolve --ro-bind /run/systemd/resolve/stub-resolv.conf /run/systemd/resolve/stub-resolv.conf",
    ],
  ])(
    "%s resolv.conf where a host's symlink into /run leads, making its directory in the empty /run",
    (_what, resolvConf, words) => {
      const bwrap = part(argvOf({ resolvConf }), "bwrap").join(" ");
      expect(bwrap).toContain(words);
    },
  );

  it("empties /var/run too where it is a directory of its own", () => {
    const bwrap = part(argvOf({ emptied: ["/run", "/var/run"] }), "bwrap").join(" ");
    expect(bwrap).toContain("--tmpfs /run --tmpfs /var/run");
    expect(bwrap).toContain("--remount-ro /run --remount-ro /var/run");
  });
});

describe("outermost", () => {
  it.each([
    [
      ["/a", "/a/b", "/c"],
      ["/a", "/c"],
    ],
    [
      ["/a/b", "/ab"],
      ["/a/b", "/ab"],
    ],
    [["/a", "/a"], ["/a"]],
    [[], []],
  ])("%j → %j", (paths, kept) => {
    expect(outermost(paths)).toEqual(kept);
  });
});
