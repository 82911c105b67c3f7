// @module-tag system

import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTempDir, forkLoop, OUTSIDE_TMP, sleepers, sleepersGone, uniqueSleep } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CommandRunner,
  HostCommands,
  type JailedCommands,
  JailUnavailable,
  Liveness,
  RunFailure,
  systemClock,
} from "../src";
import { BOUNDS, cgroupsLeft, createTestRoot, LIMITS, openJail, run, type TestRoot } from "./support";

let t: TestRoot;
let jail: JailedCommands;
let host: HostCommands;

beforeAll(async () => {
  t = await createTestRoot();
  jail = await openJail(t);
  host = new HostCommands(t.root, BOUNDS);
});
afterAll(() => t?.remove());

const runners = (): [string, CommandRunner][] => [
  ["the jail", jail],
  ["the host (unsafe-host)", host],
];

describe.each([0, 1])("what every runner does (%#: the jail, the host)", (which) => {
  const runner = () => runners()[which]![1];

  it("runs in the workspace, its home, with only the given environment", async () => {
    process.env.OAH_API_TOKEN_LEAK_CHECK = "leak";
    const r = await run(runner(), t, 'pwd; echo "$HOME"; echo "[$OAH_API_TOKEN_LEAK_CHECK]"; exit 7');
    // The jail shows the workspace at a path of its own; the host runs commands where it is.
    const seen = which === 0 ? "/workspace" : t.workspace("w");
    expect(r).toMatchObject({
      exitCode: 7,
      stdout: `${seen}\n${seen}\n[]\n`,
      timedOut: false,
      aborted: false,
    });
  });

  it("keeps the first bytes of the output and counts the rest", async () => {
    const r = await run(runner(), t, "yes y | head -c 5000; echo err >&2");
    expect(r.stdout).toBe("y\n".repeat(512));
    expect(r.stderr).toBe("err\n");
    expect(r.truncatedBytes).toBe(5000 - 1024);
  });

  it("on abort stops the command and what it started, grandchildren included", async () => {
    const marker = uniqueSleep();
    const controller = new AbortController();
    const pending = run(runner(), t, `sh -c 'sleep ${marker} & wait' & sleep ${marker} & wait`, {
      signal: controller.signal,
    });
    await expect.poll(() => sleepers(marker).length, { timeout: 5_000 }).toBe(2);
    const asked = Date.now();
    controller.abort();
    const r = await pending;
    expect(Date.now() - asked).toBeLessThan(1_000);
    expect(r.aborted).toBe(true);
    expect(sleepers(marker)).toEqual([]);
  });

  it("stops a command that writes more than a step may, reading it without keeping it", async () => {
    const r = await run(runner(), t, "yes aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    expect(r).toMatchObject({ outputExceeded: true, timedOut: false });
    expect(r.stdout).toHaveLength(BOUNDS.maxOutputBytes);
    expect(r.stdout.length + r.truncatedBytes).toBeGreaterThan(LIMITS.maxOutputBytes);
    expect(r.durationMs).toBeLessThan(3_000);
  });

  it("SIGKILLs what ignores SIGTERM after the grace period", async () => {
    const marker = uniqueSleep();
    const r = await run(runner(), t, `trap '' TERM; sleep ${marker}`, { timeoutMs: 300 });
    expect(r.timedOut).toBe(true);
    expect(r.durationMs).toBeGreaterThanOrEqual(1_000);
    expect(r.durationMs).toBeLessThan(2_500);
    expect(sleepers(marker)).toEqual([]);
  });

  it("stops what a finished command left running in its group", async () => {
    const marker = uniqueSleep();
    const r = await run(runner(), t, `sleep ${marker} & echo started`);
    expect(r).toMatchObject({ exitCode: 0, stdout: "started\n" });
    expect(await sleepersGone(marker, 3_000)).toBe(true);
  });

  it("gives the command its files read-only, named by its environment, whatever their size", async () => {
    const content = `${"r".repeat(900_000)}\n`;
    const r = await run(
      runner(),
      t,
      'wc -c < "$BIG_FILE"; tail -c 4 "$BIG_FILE"; (echo x > "$BIG_FILE") 2>/dev/null || echo read-only',
      { files: [{ name: "big.json", env: "BIG_FILE", content }] },
    );
    // In the jail it is read-only whoever the user; on the host only by its mode, which root ignores.
    const readOnly = which === 0 || process.getuid?.() !== 0 ? "read-only\n" : "";
    expect(r).toMatchObject({ exitCode: 0, stdout: `900001\nrrr\n${readOnly}` });
    // The environment could not carry it: a command whose environment is too large does not start.
    await expect(run(runner(), t, "true", { env: { BIG: content } })).rejects.toThrow(/E2BIG/);
  });

  it("refuses a workspace whose symlink leads out of the root, and runs nothing", async () => {
    symlinkSync("/etc", t.workspace(`etcws${which}`));
    const attempt = run(runner(), t, "touch planted", { ws: `etcws${which}` });
    await expect(attempt).rejects.toBeInstanceOf(RunFailure);
    await expect(attempt).rejects.toMatchObject({ code: "workspace_invalid" });
    expect(existsSync("/etc/planted")).toBe(false);
  });
});

describe("the jail", () => {
  // Children that leave the command's process group and session, each way a shell offers.
  const ESCAPES = (m: string) =>
    [
      `setsid sleep ${m} &`,
      `setsid -f sleep ${m}`,
      `(sleep ${m} &) `,
      `nohup sleep ${m} >/dev/null 2>&1 &`,
      `sh -c 'sh -c "sleep ${m}" &' `,
    ].join("\n");

  it.each([
    ["the command succeeds", {}, "echo done", { exitCode: 0 }],
    ["the command fails", {}, "exit 3", { exitCode: 3 }],
    ["the step times out", { timeoutMs: 1_500 }, "sleep 30", { timedOut: true }],
    ["the run is cancelled", { abortAfterMs: 1_000 }, "sleep 30", { aborted: true }],
  ] as const)("leaves no escaped child alive when %s", async (_when, how, tail, expected) => {
    const marker = uniqueSleep();
    const controller = new AbortController();
    const pending = run(jail, t, `${ESCAPES(marker)}; sleep 0.2; ${tail}`, {
      signal: controller.signal,
      ...("timeoutMs" in how ? { timeoutMs: how.timeoutMs } : {}),
    });
    await expect.poll(() => sleepers(marker).length, { timeout: 5_000 }).toBe(5);
    if ("abortAfterMs" in how) setTimeout(() => controller.abort(), how.abortAfterMs);
    expect(await pending).toMatchObject(expected);
    expect(sleepers(marker)).toEqual([]);
  });

  it("runs as the jail user with no way to gain privileges", async () => {
    const r = await run(jail, t, "id -u; id -g; grep -E '^(NoNewPrivs|CapEff)' /proc/self/status");
    expect(r.stdout).toBe("65534\n65534\nCapEff:\t0000000000000000\nNoNewPrivs:\t1\n");
    await run(jail, t, "echo mine > owned.txt");
    expect(statSync(join(t.workspace("w"), "owned.txt")).uid).toBe(65534);
  });

  it("sees neither the host's processes nor its environment", async () => {
    const r = await run(jail, t, `cat /proc/${process.pid}/environ; ls /proc | grep -c '^[0-9]'`);
    expect(r.stderr).toMatch(/No such file or directory/);
    expect(Number(r.stdout.trim())).toBeLessThan(6);
  });

  it.each([
    ["a data directory others may pass through", 0o711, OUTSIDE_TMP],
    ["a private data directory (mode 700, as under root's home)", 0o700, OUTSIDE_TMP],
    // The jail makes a /tmp of its own, over the host's: what it hides there must still be hidden.
    ["a private data directory under /tmp", 0o700, tmpdir()],
  ])(
    "sees no hidden directory and writes nowhere but its workspace, under %s",
    async (_where, mode, base) => {
      const own = await createTestRoot(mode, base);
      try {
        const confined = await openJail(own);
        mkdirSync(own.data, { recursive: true });
        writeFileSync(join(own.data, "history.db"), "secret rows");
        mkdirSync(own.workspace("alice"), { recursive: true });
        writeFileSync(join(own.workspace("alice"), "secret.txt"), "alice's");
        const r = await run(
          confined,
          own,
          [
            `cat ${own.data}/history.db`,
            `cat ${own.workspace("alice")}/secret.txt`,
            `ls -A ${own.root} | tr '\\n' ' '; echo`,
            "ls -A / | grep -c -x -e tmp -e workspace",
            "echo x > /etc/oah-escape",
            "echo x > /oah-escape",
            `echo x > ${own.data}/planted`,
            `echo x > ${own.workspace("alice")}/planted`,
            "ln -s /etc ../etcws-from-inside",
            // Descriptors of the host's plumbing (the workspace, bwrap's handshake) are all closed.
            // Counted by the shell itself, outside any pipeline: a pipeline's own pipe is open in
            // the shell for a moment, and a listing in that moment would count it.
            "n=0; for fd in 3 4 5 6; do [ -e /proc/$$/fd/$fd ] && n=$((n + 1)); done; echo $n",
            "echo mine > inside.txt && echo wrote-inside",
          ].join("; "),
        );
        expect(r.stdout).toBe("\n2\n0\nwrote-inside\n");
        expect(r.stderr).not.toMatch(/secret rows|alice's/);
        expect(existsSync("/etc/oah-escape")).toBe(false);
        expect(existsSync("/oah-escape")).toBe(false);
        expect(existsSync(join(own.data, "planted"))).toBe(false);
        expect(existsSync(join(own.workspace("alice"), "planted"))).toBe(false);
        expect(existsSync(own.workspace("etcws-from-inside"))).toBe(false);
        expect(readFileSync(join(own.workspace("w"), "inside.txt"), "utf8")).toBe("mine\n");
        expect(statSync(join(own.workspace("w"), "inside.txt")).uid).toBe(65534);
      } finally {
        own.remove();
      }
    },
  );

  it("stops a 500-process fork loop at the process limit while another jail keeps working", async () => {
    const marker = uniqueSleep();
    const bomb = run(jail, t, forkLoop(marker, 2), { ws: "bomb" });
    // The jail's own processes (bwrap's init, python) count too.
    await expect.poll(() => sleepers(marker).length, { timeout: 5_000 }).toBeGreaterThan(LIMITS.maxProcs - 8);
    const neighbour = await run(
      jail,
      t,
      "for i in $(seq 20); do sleep 0.1 & done; wait; echo neighbour-done",
    );
    expect(neighbour).toMatchObject({ exitCode: 0, stdout: "neighbour-done\n" });
    // It ran while the loop still held as many processes as its jail allows, and no more.
    expect(sleepers(marker).length).toBeGreaterThan(LIMITS.maxProcs - 8);
    expect(sleepers(marker).length).toBeLessThan(LIMITS.maxProcs);
    const r = await bomb;
    const made = Number(r.stdout.trim());
    expect(made).toBeLessThan(LIMITS.maxProcs);
    expect(made).toBeGreaterThan(LIMITS.maxProcs - 8);
    expect(sleepers(marker)).toEqual([]);
  });

  it.each(["on", "off", "host"] as const)(
    "network %s: shows /run and /var/run empty, so that the host's PostgreSQL socket is out of reach",
    async (network) => {
      // The machine's own PostgreSQL, whose socket is in /run/postgresql.
      expect(readdirSync("/run/postgresql")).toContain(".s.PGSQL.5432");
      const confined = await openJail(t, { network });
      const r = await run(
        confined,
        t,
        [
          "ls -A /run | wc -l",
          "ls -A /var/run/ | wc -l",
          "psql -h /run/postgresql -U postgres -d postgres -Atc 'select 42' 2>&1 | grep -c -x 42",
          "(echo x > /run/planted) 2>/dev/null || echo read-only",
        ].join("; "),
      );
      expect(r.stdout).toBe("0\n0\n0\nread-only\n");
    },
  );

  it("covers every Unix socket the host has bound where the jail would show it", async () => {
    const dir = createTempDir("oah-socket-", OUTSIDE_TMP);
    const path = join(dir.path, "service.sock");
    const server = createServer((socket) => socket.end("reached\n"));
    await new Promise<void>((resolve) => server.listen(path, resolve));
    try {
      chmodSync(path, 0o777);
      // The host's own user (the jail user too, outside a jail) reaches it.
      const reached = await new Promise<string>((resolve, reject) => {
        const client = createConnection(path);
        client.on("data", (data) => resolve(data.toString()));
        client.on("error", reject);
      });
      expect(reached).toBe("reached\n");
      const connect = `/usr/bin/python3 -c "import socket; s = socket.socket(socket.AF_UNIX); s.connect('${path}'); print(s.recv(64).decode(), end='')"`;
      const r = await run(jail, t, `${connect} 2>&1 | tail -1`);
      expect(r.stdout).toMatch(/ConnectionRefusedError|Connection refused/);
      expect(r.stdout).not.toContain("reached");
    } finally {
      server.close();
      dir.remove();
    }
  });

  it("bounds /dev/shm and lets nothing be written in /dev: the host's shared memory grows by the bound at most", async () => {
    const fill = [
      "before=$(grep Shmem: /proc/meminfo | tr -dc 0-9)",
      // Files under the size a process may write, 64 MiB in all: only the tmpfs's size stops them.
      "n=0; for i in $(seq 64); do head -c 1000000 /dev/zero > /dev/shm/f$i 2>/dev/null || break; n=$i; done",
      "after=$(grep Shmem: /proc/meminfo | tr -dc 0-9)",
      'echo "$n $(( (after - before) * 1024 ))"',
      "(echo x > /dev/planted) 2>/dev/null || echo read-only",
      "echo ok > /dev/null && echo devices-work",
    ].join("; ");
    const r = await run(jail, t, fill);
    const [written, grew] = r.stdout.split("\n")[0]!.split(" ").map(Number);
    expect(written).toBe(1);
    // Other tests' jails share this host's memory: half of what was tried is far above the bound.
    expect(grew).toBeLessThan(32 * 1_048_576);
    expect(r.stdout.split("\n").slice(1)).toEqual(["read-only", "devices-work", ""]);
  });

  it("caps the memory of the jail as a whole: four processes of 400 MiB, each within its own limit, do not fit in 1 GiB", async () => {
    const hog = `/usr/bin/python3 -c "b = b'x' * (400 * 2**20); import time; time.sleep(3)"`;
    const r = await run(
      jail,
      t,
      `pids=; for i in 1 2 3 4; do ${hog} & pids="$pids $!"; done; n=0; for p in $pids; do wait $p || n=$((n + 1)); done; echo "killed $n"`,
      { timeoutMs: 30_000 },
    );
    expect(Number(/killed (\d)/.exec(r.stdout)?.[1])).toBeGreaterThanOrEqual(1);
    expect(cgroupsLeft()).toEqual([]);
  });

  it("caps the size of a file a step writes", async () => {
    const r = await run(jail, t, "head -c 2000000 /dev/zero > big; echo $?; stat -c %s big");
    // head is killed by SIGXFSZ (128 + 25) at the limit.
    expect(r.stdout).toBe(`153\n${LIMITS.maxFileBytes}\n`);
  });

  it("kills the steps of a host whose liveness window passed without a renewal, even if it never checks", async () => {
    const liveness = new Liveness(1_500, systemClock);
    const watched = await openJail(t, { liveness });
    const kept = uniqueSleep();
    const killed = uniqueSleep();
    // One jail whose host keeps renewing, one whose host stops: both start with 1.5 s of window.
    const renewals = setInterval(() => liveness.renewed(Date.now()), 300);
    const first = run(watched, t, `sleep ${kept}`, { timeoutMs: 20_000 });
    await expect.poll(() => sleepers(kept).length, { timeout: 5_000 }).toBe(1);
    // The window the renewing host first gave its watchdog passes: another host's watchdog, given
    // the same window later and never told of a renewal, kills its jail meanwhile.
    const silent = await openJail(t, { liveness: new Liveness(1_500, systemClock) });
    const unrenewed = uniqueSleep();
    const control = run(silent, t, `sleep ${unrenewed}`, { timeoutMs: 20_000 });
    await expect.poll(() => sleepers(unrenewed).length, { timeout: 5_000 }).toBe(1);
    expect(await sleepersGone(unrenewed, 5_000)).toBe(true);
    expect(await control).toMatchObject({ signal: "SIGKILL" });
    silent.close();
    expect(sleepers(kept)).toHaveLength(1);
    clearInterval(renewals);
    const second = run(watched, t, `sleep ${killed}`, { timeoutMs: 5_000 });
    const lost = Date.now();
    await expect.poll(() => sleepers(killed).length, { timeout: 1_400 }).toBe(1);
    expect(await sleepersGone(killed, 5_000)).toBe(true);
    expect(await sleepersGone(kept, 200)).toBe(true);
    expect(Date.now() - lost).toBeLessThan(3_000);
    // The host learns it before it reads the result: its runs stop, writing nothing.
    expect(liveness.check()).toBe(false);
    expect(await second).toMatchObject({ timedOut: false, signal: "SIGKILL" });
    await first;
    watched.close();
  });

  it.each([
    ["a sandbox user that does not exist", { user: "no-such-user-oah" }, /OAH_SANDBOX_USER no-such-user-oah/],
    ["root as the jail user", { user: "root" }, /must not be root/],
  ] as const)("cannot be opened with %s, and says what to do", async (_name, over, reason) => {
    const opening = openJail(t, over);
    await expect(opening).rejects.toBeInstanceOf(JailUnavailable);
    await expect(opening).rejects.toThrow(reason);
    await expect(opening).rejects.toThrow(/OAH_SHELL=off .* OAH_SHELL=unsafe-host/);
  });

  it("cannot be opened where bwrap is missing or namespaces are refused", async () => {
    const bin = join(t.dir, "fake-bin");
    mkdirSync(bin, { recursive: true });
    for (const tool of [
      "setpriv",
      "prlimit",
      "unshare",
      "mount",
      "nsenter",
      "slirp4netns",
      "bash",
      "sh",
      "id",
      "getent",
    ]) {
      const path = execFileSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).trim();
      symlinkSync(path, join(bin, tool));
    }
    const path = process.env.PATH;
    try {
      process.env.PATH = bin;
      await expect(openJail(t)).rejects.toThrow(
        /bubblewrap is not installed .*apt-get install -y bubblewrap/,
      );
      writeFileSync(
        join(bin, "bwrap"),
        "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n",
        { mode: 0o755 },
      );
      await expect(openJail(t)).rejects.toThrow(/No permissions to create new namespace/);
    } finally {
      process.env.PATH = path;
    }
  });
});
