import { describe, expect, it } from "vitest";
import { type SandboxPlan, sandboxArgv } from "../src";

const plan = (over: Partial<SandboxPlan> = {}): SandboxPlan => ({
  tools: { setpriv: "/usr/bin/setpriv", bwrap: "/usr/bin/bwrap", prlimit: "/usr/bin/prlimit" },
  user: { uid: 65534, gid: 65534, switchUser: true },
  workspace: { fd: 3, path: "/srv/oah/.openharness/workspaces/ws" },
  hidden: ["/srv/oah/.openharness", "/srv/oah/.openharness/workspaces"],
  network: true,
  limits: { maxProcs: 256, maxFileBytes: 1024, cpuSeconds: 60, memoryBytes: 4096, maxOutputBytes: 8192 },
  command: "echo 'hi'; exit 3",
  ...over,
});

/** The arguments of one of the three programs of the command line. */
function part(args: string[], program: "setpriv" | "bwrap" | "prlimit"): string[] {
  const bwrap = args.indexOf("/usr/bin/bwrap");
  const prlimit = args.indexOf("/usr/bin/prlimit");
  if (program === "setpriv") return args.slice(0, bwrap);
  if (program === "bwrap") return args.slice(bwrap + 1, prlimit);
  return args.slice(prlimit + 1);
}

describe("the sandbox's command line", () => {
  it("drops to the sandbox user for good, then bwrap, then the limits, then the command as one argument", () => {
    const { file, args } = sandboxArgv(plan());
    expect(file).toBe("/usr/bin/setpriv");
    expect(part(args, "setpriv")).toEqual([
      "--reuid=65534",
      "--regid=65534",
      "--clear-groups",
      "--no-new-privs",
      "--",
    ]);
    expect(part(args, "prlimit")).toEqual([
      "--nproc=256",
      "--fsize=1024",
      "--cpu=60",
      "--data=4096",
      "--core=0",
      "--",
      "/bin/sh",
      "-c",
      "echo 'hi'; exit 3",
    ]);
  });

  it("a host that is not root stays its own user and only gives up privileges", () => {
    const { args } = sandboxArgv(plan({ user: { uid: 1000, gid: 1000, switchUser: false } }));
    expect(part(args, "setpriv")).toEqual(["--no-new-privs", "--"]);
    expect(part(args, "bwrap").join(" ")).toContain("--uid 1000 --gid 1000");
  });

  it("mounts in an order where each mount lands on the previous ones: system, /tmp, hidden, workspace", () => {
    const bwrap = part(sandboxArgv(plan()).args, "bwrap");
    const at = (...words: string[]) => bwrap.join(" ").indexOf(words.join(" "));
    expect(at("--ro-bind / /")).toBeGreaterThan(-1);
    expect(at("--size 1024 --tmpfs /tmp")).toBeGreaterThan(at("--ro-bind / /"));
    expect(at("--tmpfs /srv/oah/.openharness")).toBeGreaterThan(at("--tmpfs /tmp"));
    expect(at("--tmpfs /srv/oah/.openharness/workspaces")).toBeGreaterThan(
      at("--tmpfs /srv/oah/.openharness "),
    );
    expect(at("--bind-fd 3 /srv/oah/.openharness/workspaces/ws")).toBeGreaterThan(
      at("--tmpfs /srv/oah/.openharness/workspaces"),
    );
    expect(bwrap.slice(-3)).toEqual(["--chdir", "/srv/oah/.openharness/workspaces/ws", "--"]);
  });

  it.each([
    [true, [], ["--unshare-net", "/run"]],
    [false, ["--unshare-net", "--tmpfs /run"], []],
  ] as const)("network %s: %j present, %j absent", (network, present, absent) => {
    const bwrap = part(sandboxArgv(plan({ network })).args, "bwrap").join(" ");
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
});
