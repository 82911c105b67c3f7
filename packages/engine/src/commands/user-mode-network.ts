import { type ChildProcess, spawn } from "node:child_process";
import { networkInterfaces } from "node:os";
import type { Readable, Writable } from "node:stream";

/** How long the network of one jail may take to come up before the command is refused. */
const ATTACH_MS = 10_000;

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/**
 * The IPv4 addresses a step must not reach: this host's own (its services bound to every
 * address: the API or the console on 0.0.0.0, a database) and `configured` (oah's own services
 * elsewhere: Redis, PostgreSQL). Loopback is the jail's own anyway.
 */
export function refusedAddresses(configured: readonly string[]): string[] {
  const own = Object.values(networkInterfaces())
    .flatMap((addresses) => addresses ?? [])
    .filter((a) => a.family === "IPv4" && !a.internal)
    .map((a) => a.address);
  return [...new Set([...own, ...configured])].filter((address) => IPV4.test(address));
}

/** The programs that attach a jail's network: slirp4netns, and util-linux's unshare. */
export interface NetworkTools {
  slirp4netns: string;
  unshare: string;
}

/** What a jail's network needs to be reached: the process in its namespaces, and whose they are. */
export interface NetworkTarget {
  /** A process in the jail's network namespace (the host's child: unshare made the namespace). */
  pid: number;
  /** The namespace belongs to a user namespace of the host's own user (a host that is not root). */
  viaUserNamespace: boolean;
}

/**
 * One jail's user-mode network: slirp4netns on its network namespace (where the host's stage
 * already routed the refused addresses nowhere), configured (10.0.2.100, gateway 10.0.2.2, DNS
 * 10.0.2.3) with no way to the host's loopback. slirp4netns runs beside the jail and ends when its exit descriptor closes:
 * when the command ends, or with the host.
 */
export class UserModeNetwork {
  private constructor(
    private readonly slirp: ChildProcess,
    private readonly exit: Writable,
  ) {}

  static async attach(tools: NetworkTools, target: NetworkTarget): Promise<UserModeNetwork> {
    const ns = (kind: string) => `/proc/${target.pid}/ns/${kind}`;
    // As root, slirp4netns confines itself (a mount namespace, no capability but binding ports),
    // inside a mount namespace of ours made private first: its own makes `/` private but not
    // what is under it, and its unmount of the old root would unmount the host's shared mounts
    // (`ip netns`'s /run/netns). As another user it has nothing to give up, and its jail
    // would ask for uid 0.
    const confined = !target.viaUserNamespace;
    const [file, ...prefix] = confined
      ? [tools.unshare, "--mount", "--propagation", "private", "--", tools.slirp4netns]
      : [tools.slirp4netns];
    const slirp = spawn(
      file!,
      [
        ...prefix,
        "--configure",
        "--mtu=65520",
        "--disable-host-loopback",
        ...(confined ? ["--enable-sandbox"] : []),
        "--enable-seccomp",
        "--ready-fd=3",
        "--exit-fd=4",
        ...(target.viaUserNamespace ? [`--userns-path=${ns("user")}`] : []),
        "--netns-type=path",
        ns("net"),
        "tap0",
      ],
      { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] },
    );
    const network = new UserModeNetwork(slirp, slirp.stdio[4] as Writable);
    try {
      await network.ready();
      return network;
    } catch (error) {
      network.stop();
      throw error;
    }
  }

  private ready(): Promise<void> {
    const { slirp } = this;
    let stderr = "";
    (slirp.stderr as Readable).on("data", (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString();
    });
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => fail("did not come up"), ATTACH_MS);
      const fail = (what: string) => {
        clearTimeout(timer);
        reject(new Error(`slirp4netns ${what}${stderr.trim() ? `: ${stderr.trim()}` : ""}`));
      };
      slirp.once("error", (error) => fail(error.message));
      slirp.once("exit", (code, signal) => fail(`exited (${signal ?? code})`));
      (slirp.stdio[3] as Readable).once("data", () => {
        clearTimeout(timer);
        slirp.removeAllListeners("exit");
        resolve();
      });
    });
  }

  /** Ends slirp4netns: its exit descriptor closes. */
  stop(): void {
    this.exit.destroy();
    (this.slirp.stdio[3] as Readable).destroy();
    (this.slirp.stderr as Readable).destroy();
    // Whatever state it is in, nothing of the jail's network may outlive the command.
    setTimeout(() => this.slirp.kill("SIGKILL"), 1_000).unref();
  }
}
