import type { StepNetwork } from "@oah/core";
import { describe, expect, it } from "vitest";
import { outermost, type SandboxPlan, sandboxArgv } from "../src";

const TOOLS = {
  setpriv: "/usr/bin/setpriv",
  bwrap: "/usr/bin/bwrap",
  prlimit: "/usr/bin/prlimit",
  unshare: "/usr/bin/unshare",
  mount: "/usr/bin/mount",
  ip: "/usr/sbin/ip",
  sh: "/bin/sh",
};
const ROOT_HOST = { uid: 65534, gid: 65534, switchUser: true };
const USER_HOST = { uid: 1000, gid: 1000, switchUser: false };

const plan = (over: Partial<SandboxPlan> = {}): SandboxPlan => ({
  tools: TOOLS,
  user: ROOT_HOST,
  workspaceFd: 3,
  system: [
    { name: "usr" },
    { name: "bin", symlink: "usr/bin" },
    { name: "proc" },
    { name: "tmp" },
    { name: "run" },
  ],
  hidden: ["/srv/oah/.openharness", "/srv/oah/.openharness/workspaces"],
  network: "on",
  refused: ["10.0.0.5", "192.0.2.2", "10.0.0.5"],
  networkFds: { info: 4, block: 5, resolvConf: { fd: 6, path: "/etc/resolv.conf" } },
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

const argvOf = (over: Partial<SandboxPlan> = {}) => {
  const { file, args } = sandboxArgv(plan(over));
  return [file, ...args];
};

describe("the sandbox's command line", () => {
  it("a root host: its own mount namespace first, then the sandbox user for good, bwrap, the limits, the command as one argument", () => {
    const argv = argvOf();
    expect(argv[0]).toBe(TOOLS.unshare);
    expect(part(argv, "unshare")).toEqual(["--mount", "--propagation", "private", "--net", "--"]);
    // The host's stage is given the hidden directories (only the outermost ones), then the refused addresses.
    const stage = argv.slice(argv.indexOf(TOOLS.sh), argv.indexOf(TOOLS.setpriv));
    expect(stage.slice(3)).toEqual([
      "oah-sandbox",
      TOOLS.mount,
      TOOLS.ip,
      "/srv/oah/.openharness",
      "--",
      "10.0.0.5",
      "192.0.2.2",
      "--",
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
    ["on", [TOOLS.unshare, "--user", "--map-current-user", "--net", "--keep-caps", "--", TOOLS.sh]],
    ["off", [TOOLS.setpriv]],
    ["host", [TOOLS.setpriv]],
  ] as const)(
    "a host that is not root, network %s, stays its own user and gives up privileges: %j",
    (network, head) => {
      const argv = argvOf({
        user: USER_HOST,
        network,
        networkFds: network === "on" ? plan().networkFds : undefined,
      });
      expect(argv.slice(0, head.length)).toEqual(head);
      // What it kept for its stage (the routes) it gives up before bwrap, which refuses to start with any.
      expect(part(argv, "setpriv")).toEqual([
        ...(network === "on" ? ["--inh-caps=-all", "--ambient-caps=-all"] : []),
        "--no-new-privs",
        "--",
      ]);
      const stage = argv.slice(argv.indexOf(TOOLS.sh), argv.indexOf(TOOLS.setpriv));
      if (network === "on")
        expect(stage.slice(3)).toEqual(["oah-sandbox", "-", TOOLS.ip, "--", "10.0.0.5", "192.0.2.2", "--"]);
      else expect(stage).toEqual([]);
      const bwrap = part(argv, "bwrap").join(" ");
      expect(bwrap).toContain("--uid 1000 --gid 1000");
      // It may pass through its own directories: bwrap binds the workspace's descriptor and hides the rest itself.
      expect(bwrap).toContain("--bind-fd 3 /workspace");
      expect(bwrap).toContain("--tmpfs /srv/oah/.openharness ");
      expect(bwrap).not.toContain("/srv/oah/.openharness/workspaces");
    },
  );

  it("leaves to the workspace's bind over /tmp the hiding of what is under /tmp", () => {
    const argv = argvOf({ hidden: ["/tmp/oah/.openharness", "/srv/oah/.openharness"] });
    const stage = argv.slice(argv.indexOf(TOOLS.sh), argv.indexOf(TOOLS.setpriv));
    expect(stage.slice(3, 7)).toEqual(["oah-sandbox", TOOLS.mount, TOOLS.ip, "/srv/oah/.openharness"]);
    expect(stage[7]).toBe("--");
  });

  it("shows the system entry by entry on a root of its own, then /proc, /dev, the workspace, /tmp, /run", () => {
    const bwrap = part(argvOf(), "bwrap");
    const at = (...words: string[]) => bwrap.join(" ").indexOf(words.join(" "));
    expect(at("--ro-bind /usr /usr")).toBeGreaterThan(-1);
    expect(at("--symlink usr/bin /bin")).toBeGreaterThan(at("--ro-bind /usr /usr"));
    // The host's /proc, /tmp and /run are never shown: the sandbox makes its own.
    for (const own of ["/proc /proc", "/tmp /tmp", "/run /run"]) expect(at("--ro-bind", own)).toBe(-1);
    expect(at("--proc /proc")).toBeGreaterThan(at("--symlink usr/bin /bin"));
    // The root stage bound the workspace over /tmp; bwrap moves it to /workspace, then covers /tmp.
    expect(at("--bind /tmp /workspace")).toBeGreaterThan(at("--dev /dev"));
    expect(at("--size 1024 --tmpfs /tmp")).toBeGreaterThan(at("--bind /tmp /workspace"));
    expect(at("--tmpfs /run")).toBeGreaterThan(at("--tmpfs /tmp"));
    expect(at("--remount-ro /")).toBeGreaterThan(at("--tmpfs /run"));
    expect(bwrap.slice(-7)).toEqual(["--chdir", "/workspace", "--info-fd", "4", "--block-fd", "5", "--"]);
  });

  it.each<[StepNetwork, string[], string[]]>([
    [
      "on",
      ["--ro-bind-data 6 /etc/resolv.conf", "--tmpfs /run", "--info-fd 4 --block-fd 5"],
      ["--unshare-net"],
    ],
    ["off", ["--unshare-net", "--tmpfs /run"], ["--info-fd", "--ro-bind-data"]],
    ["host", ["--ro-bind /run /run"], ["--unshare-net", "--tmpfs /run", "--info-fd"]],
  ])("network %s: %j present, %j absent", (network, present, absent) => {
    const argv = argvOf({ network, networkFds: network === "on" ? plan().networkFds : undefined });
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

  it("writes the sandbox's resolv.conf where a host's symlink into /run leads, making its directory", () => {
    const networkFds = {
      info: 4,
      block: 5,
      resolvConf: { fd: 6, path: "/run/systemd/resolve/stub-resolv.conf" },
    };
    const bwrap = part(argvOf({ networkFds }), "bwrap").join(" ");
    expect(bwrap).toContain(
      "--tmpfs /run --dir /run/systemd/resolve --ro-bind-data 6 /run/systemd/resolve/stub-resolv.conf",
    );
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
