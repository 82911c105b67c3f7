import { execFileSync, spawn } from "node:child_process";
import { randomInt } from "node:crypto";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";

/**
 * Every namespace and link made here is named with this prefix, followed by the network's id
 * (the hex of its subnet's middle octets), so that what a crashed run left can be found. Link
 * names have 15 characters at most: the bridge's, `oahn<id>b<pid in base 36>`, names its owner,
 * and is made first, so a network is a leftover once its bridge's owner is gone.
 */
const PREFIX = "oahn";
const BRIDGE = new RegExp(`^${PREFIX}([0-9a-f]{4})b([0-9a-z]+)$`);
const NAMESPACE = new RegExp(`^${PREFIX}-([0-9a-f]{4})-`);

export interface NetworkHost {
  /** The network namespace, for `ip netns exec`. */
  namespace: string;
  /** Its address on the bridge. */
  address: string;
}

export interface HostNetwork {
  /** A /24 of 10.0.0.0/8 that no route of this machine touches. */
  subnet: string;
  /** The root namespace's address on the bridge (.1): where the servers the hosts share listen. */
  bridgeAddress: string;
  /** A new namespace joined to the bridge, with the next free address and its loopback up. */
  addHost(label: string): NetworkHost;
  /** What a TCP connection from inside `namespace` to `address:port` comes to: "connected", or the error code. */
  tryConnect(namespace: string, address: string, port: number): Promise<string>;
  /**
   * Cuts the host off the bridge (its end of the link down): what it sends is lost, and its
   * connections hang without an error, as across a partition, until `heal` puts the link back.
   */
  cut(namespace: string): void;
  heal(namespace: string): void;
  /** Removes the namespaces and links (the processes in them must have ended). */
  dispose(): void;
}

let ipPath: string | undefined;

/** iproute2's `ip`, found on PATH or in the sbin directories that a non-login PATH may lack. */
function ip(): string {
  ipPath ??= [...(process.env.PATH ?? "").split(delimiter), "/usr/sbin", "/sbin"]
    .filter(Boolean)
    .map((dir) => join(dir, "ip"))
    .find((path) => existsSync(path));
  if (!ipPath) throw unavailable("iproute2's `ip` is not installed (apt-get install iproute2)");
  return ipPath;
}

// Loud on purpose: a test that needs hosts of their own must fail, never skip, where none can be made.
const unavailable = (reason: string): Error =>
  new Error(`network namespaces are required by this test and cannot be made here: ${reason}`);

function run(args: string[]): string {
  const bin = ip();
  try {
    return execFileSync(bin, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? "").trim();
    throw new Error(`ip ${args.join(" ")} failed: ${stderr || (error as Error).message}`);
  }
}

/** Like `run`, for removals: what is already gone is no error. */
function remove(args: string[]): void {
  const bin = ip();
  try {
    execFileSync(bin, args, { stdio: "ignore" });
  } catch {
    // already gone
  }
}

/** The command line that runs `argv` inside `namespace`; `argv` itself without one. */
export function inNamespace(namespace: string | undefined, argv: string[]): string[] {
  return namespace ? [ip(), "netns", "exec", namespace, ...argv] : argv;
}

const linkNames = (): string[] =>
  (JSON.parse(run(["-j", "link", "show"])) as { ifname: string }[]).map((l) => l.ifname);

const namespaceNames = (): string[] =>
  (JSON.parse(run(["-j", "netns", "list"]) || "[]") as { name: string }[]).map((n) => n.name);

function removeNetwork(id: string): void {
  for (const name of namespaceNames())
    if (name.startsWith(`${PREFIX}-${id}-`)) remove(["netns", "del", name]);
  for (const name of linkNames()) if (name.startsWith(`${PREFIX}${id}`)) remove(["link", "del", name]);
}

/** Removes the networks of earlier runs whose process is gone, and namespaces left without a bridge. */
function removeLeftovers(): void {
  // Namespaces first: one listed here had its bridge made before, so the links listed next show it.
  const namespaces = namespaceNames();
  const live = new Set<string>();
  for (const name of linkNames()) {
    const [, id, owner] = BRIDGE.exec(name) ?? [];
    if (!id || !owner) continue;
    if (existsSync(`/proc/${Number.parseInt(owner, 36)}`)) live.add(id);
    else removeNetwork(id);
  }
  for (const name of namespaces) {
    const id = NAMESPACE.exec(name)?.[1];
    if (id && !live.has(id)) remove(["netns", "del", name]);
  }
}

/** Whether 10.a.b.0/24 overlaps any IPv4 route of this machine (a live network of ours has one too). */
function routed(a: number, b: number): boolean {
  const routes = JSON.parse(run(["-j", "-4", "route", "show", "table", "all"])) as { dst: string }[];
  const candidate = ((10 << 24) | (a << 16) | (b << 8)) >>> 0;
  return routes.some(({ dst }) => {
    const [address, length] = dst.split("/");
    const octets = address!.split(".").map(Number);
    if (octets.length !== 4 || octets.some(Number.isNaN)) return false;
    const bits = Math.min(Number(length ?? 32), 24);
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    const network = ((octets[0]! << 24) | (octets[1]! << 16) | (octets[2]! << 8) | octets[3]!) >>> 0;
    return ((network ^ candidate) & mask) === 0;
  });
}

/**
 * Hosts of their own on this machine: a Linux bridge in the root namespace (.1 of a random
 * 10.x.y.0/24) and, per host, a network namespace joined to it by a veth pair. A host reaches
 * the bridge's address and the other hosts, and nothing else: its 127.0.0.1 is its own.
 */
export function createHostNetwork(): HostNetwork {
  if (process.getuid?.() !== 0) throw unavailable("they need root");
  removeLeftovers();
  let octets: [number, number] | undefined;
  for (let i = 0; i < 50 && !octets; i++) {
    const candidate: [number, number] = [randomInt(256), randomInt(256)];
    if (!routed(...candidate)) octets = candidate;
  }
  if (!octets) throw new Error("no free 10.x.y.0/24 found for a host network");
  const [a, b] = octets;
  const id = ((a << 8) | b).toString(16).padStart(4, "0");
  const base = `10.${a}.${b}`;
  const bridge = `${PREFIX}${id}b${process.pid.toString(36)}`;
  let hosts = 0;
  /** Each host's end of its link in the root namespace, by namespace. */
  const links = new Map<string, string>();
  const linkOf = (namespace: string): string => {
    const link = links.get(namespace);
    if (!link) throw new Error(`no host ${namespace} on this network`);
    return link;
  };
  const dispose = () => removeNetwork(id);
  try {
    run(["link", "add", bridge, "type", "bridge"]);
    run(["addr", "add", `${base}.1/24`, "dev", bridge]);
    run(["link", "set", bridge, "up"]);
  } catch (error) {
    dispose();
    throw error;
  }
  return {
    subnet: `${base}.0/24`,
    bridgeAddress: `${base}.1`,
    addHost(label) {
      if (!/^[a-z0-9-]{1,32}$/.test(label)) throw new Error(`a host label is a-z 0-9 -, got "${label}"`);
      const n = hosts + 1;
      if (n > 250) throw new Error("a host network holds at most 250 hosts");
      const host = { namespace: `${PREFIX}-${id}-${label}`, address: `${base}.${n + 1}` };
      const [outside, inside] = [`${PREFIX}${id}h${n}`, `${PREFIX}${id}n${n}`];
      try {
        run(["netns", "add", host.namespace]);
      } catch (error) {
        throw unavailable((error as Error).message);
      }
      run(["link", "add", outside, "type", "veth", "peer", "name", inside]);
      run(["link", "set", inside, "netns", host.namespace]);
      run(["link", "set", outside, "master", bridge]);
      run(["link", "set", outside, "up"]);
      run(["-n", host.namespace, "addr", "add", `${host.address}/24`, "dev", inside]);
      run(["-n", host.namespace, "link", "set", inside, "up"]);
      run(["-n", host.namespace, "link", "set", "lo", "up"]);
      hosts = n;
      links.set(host.namespace, outside);
      return host;
    },
    tryConnect(namespace, address, port) {
      const probe = `const s = require("node:net").connect(${port}, ${JSON.stringify(address)});
        s.setTimeout(2000, () => { console.log("ETIMEDOUT"); process.exit(); });
        s.on("connect", () => { console.log("connected"); process.exit(); });
        s.on("error", (e) => { console.log(e.code); process.exit(); });`;
      const [command, ...args] = inNamespace(namespace, [process.execPath, "-e", probe]);
      return new Promise((resolve, reject) => {
        const child = spawn(command!, args, { stdio: ["ignore", "pipe", "inherit"] });
        let output = "";
        child.stdout.on("data", (chunk: Buffer) => {
          output += chunk.toString();
        });
        child.once("error", reject);
        child.once("exit", () => resolve(output.trim()));
      });
    },
    cut(namespace) {
      run(["link", "set", linkOf(namespace), "down"]);
    },
    heal(namespace) {
      run(["link", "set", linkOf(namespace), "up"]);
    },
    dispose,
  };
}
