// @module-tag unit

import { describe, expect, it } from "vitest";
import { diagnoseJail, type JailFacts } from "../src";

const NONE: JailFacts = {
  missingTool: null,
  maxUserNamespaces: 63_000,
  unprivilegedUsernsClone: null,
  apparmorRestrictsUserns: null,
  inContainer: false,
  trialError: "bwrap: setting up uid map: Permission denied",
};

describe("why a jail cannot be made, and the fix", () => {
  it.each<[string, Partial<JailFacts>, RegExp, RegExp]>([
    [
      "bubblewrap missing",
      { missingTool: "bwrap" },
      /^bubblewrap is not installed/,
      /apt-get install -y bubblewrap/,
    ],
    [
      "util-linux's unshare missing",
      { missingTool: "unshare" },
      /unshare is not installed \(util-linux\)/,
      /apt-get install -y util-linux/,
    ],
    [
      "slirp4netns missing, which only the network needs",
      { missingTool: "slirp4netns" },
      /slirp4netns is not installed .*OAH_STEP_NETWORK=on/,
      /apt-get install -y slirp4netns, or set OAH_STEP_NETWORK=off/,
    ],
    [
      "iproute2 missing",
      { missingTool: "ip" },
      /ip is not installed \(iproute2\)/,
      /apt-get install -y iproute2/,
    ],
    [
      "a tool missing wins over any other fact",
      { missingTool: "bwrap", maxUserNamespaces: 0 },
      /bubblewrap/,
      /bubblewrap/,
    ],
    [
      "user namespaces turned off",
      { maxUserNamespaces: 0 },
      /user\.max_user_namespaces = 0/,
      /sysctl -w user\.max_user_namespaces=15000/,
    ],
    [
      "Debian's older switch for unprivileged user namespaces",
      { unprivilegedUsernsClone: 0 },
      /kernel\.unprivileged_userns_clone = 0/,
      /sysctl -w kernel\.unprivileged_userns_clone=1/,
    ],
    [
      "Ubuntu 24.04's AppArmor restriction, when bwrap was refused",
      { apparmorRestrictsUserns: 1 },
      /AppArmor .*apparmor_restrict_unprivileged_userns = 1.*Permission denied/,
      /bwrap-userns-restrict.*apparmor_restrict_unprivileged_userns=0/,
    ],
    [
      "the AppArmor switch set, but bwrap failed for another reason",
      { apparmorRestrictsUserns: 1, trialError: "bwrap: execvp /bin/sh: No such file or directory" },
      /the trial command in a sandbox failed: "bwrap: execvp/,
      /npm run doctor/,
    ],
    [
      "a container that may not make namespaces",
      { inContainer: true, trialError: "bwrap: No permissions to create new namespace" },
      /this container may not make namespaces.*No permissions/,
      /seccomp=unconfined/,
    ],
    [
      "a /dev/net/tun that oah's user may not open",
      { inContainer: true, trialError: 'slirp4netns exited (1): open("/dev/net/tun"): Permission denied' },
      /slirp4netns cannot open \/dev\/net\/tun/,
      /chmod 0666 \/dev\/net\/tun.*OAH_STEP_NETWORK=off/,
    ],
    [
      "anything else: what the trial said",
      { trialError: "something odd" },
      /failed: "something odd"/,
      /npm run doctor/,
    ],
  ])("%s", (_case, facts, cause, fix) => {
    const diagnosis = diagnoseJail({ ...NONE, ...facts });
    expect(diagnosis.cause).toMatch(cause);
    expect(diagnosis.fix).toMatch(fix);
  });
});
