#!/usr/bin/env bash
# The host's own stage of one jailed command (see jail-argv.ts): run first, in the
# namespaces the host made for the jail, with the privileges it has there, before it gives
# them up (setpriv, then bwrap, come next: what it executes).
#
# Arguments: MOUNT (or -), IP (or -), then five lists, each its length and then its items:
#   the descriptors to keep, the cgroup.procs files to join, the directories to hide, the
#   sockets to cover, the addresses to refuse; then the command line to execute.
#
# - Every descriptor but 0-2 and the jail's own is closed: oah's process may hold some it
#   inherited without close-on-exec (`oah-api 200</root/secret`), which would reach the command.
# - It joins the jail's cgroup, so that everything the jail starts is in it.
# - As root (MOUNT given): it binds the workspace (descriptor 3) over /tmp, where the jail
#   user can name it (bwrap resolves every path it binds as that user, who may not pass through
#   the data directory's parents), closes the descriptor, hides each directory under an empty
#   read-only tmpfs, and covers each socket with /dev/null. What is under /tmp is covered
#   already: the workspace is there now, and the jail gets a /tmp of its own over it.
# - With the network on (IP given): the loopback up, and a `prohibit` route for each refused
#   address, so that a connection to one fails at once. The command gets no capability over
#   this namespace, so it cannot take a route away.
# Exits 125 when a step of its own fails.
mount=$1 ip=$2
shift 2

n=$1 keep=" 0 1 2 ${*:2:$1} "
shift $((n + 1))
for fd in /proc/$$/fd/*; do
  fd=${fd##*/}
  [[ $keep == *" $fd "* ]] || eval "exec $fd<&-"
done

n=$1
for procs in "${@:2:n}"; do echo $$ >"$procs" || exit 125; done
shift $((n + 1))

if [[ $mount != - ]]; then
  "$mount" --bind /proc/self/fd/3 /tmp || exit 125
  exec 3<&-
fi
n=$1
for dir in "${@:2:n}"; do "$mount" -t tmpfs -o ro,size=4k,mode=0 oah-hidden "$dir" || exit 125; done
shift $((n + 1))
n=$1
for socket in "${@:2:n}"; do
  [[ ! -S $socket ]] || "$mount" --bind /dev/null "$socket" || exit 125
done
shift $((n + 1))

n=$1 routes="link set lo up"
for address in "${@:2:n}"; do routes+=$'\n'"route add prohibit $address/32"; done
shift $((n + 1))
if [[ $ip != - ]]; then printf '%s\n' "$routes" | "$ip" -batch - || exit 125; fi

exec "$@"
