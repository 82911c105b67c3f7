-- Shared by the scripts that change a session's lock or lanes: where sessions wait, and
-- which workspaces may be claimed from (docs/spec.md §5). A script that includes it takes the
-- ready lanes as its first two keys, readySub and readyNormal, and as its first three
-- arguments base (the key prefix with its hash tag, which the other keys are built
-- from), the fair-share digest and the fair-share configuration or "" (fair-share.lua).
-- Needs: server-time. Sets `now`, Redis's clock for the whole call, and `bound`, the
-- bound of ready scores as ZRANGEBYSCORE takes it. What changes workspaces' places is
-- in settle.lua.
--
-- Lanes. A ready lane is a sorted set of sessions scored by the time they are ready at.
-- A session whose lock is held stays in its lane, scored at the lock's expiry: it is not
-- claimable meanwhile, and if its holder dies without releasing it, it becomes claimable
-- by itself when the lock expires. The lane of a session is that of its head run's
-- priority, in two places: the ready lane of that priority (every session, for the
-- pressure read) and its workspace's lane of that priority (wready:<ws>:<priority>, for
-- claims), with the same score. session-ws says which workspace's lanes a session is
-- in: its head run's workspace when it was placed.
--
-- Workspaces. Each workspace with sessions in its lanes or held locks is in one of two
-- sorted sets: `workspaces`, the claimable ones (a ready session, and fewer held locks
-- than their cap), scored by pass; or `workspaces-asleep`, the others, scored by when
-- that may change by itself (a hidden session maturing, a held lock expiring). A
-- workspace whose last ready session a claim took stays claimable until a claim finds
-- it so; that changes no claim's order. Virtual time is the score of the member "" of
-- `workspaces` (no workspace id is empty): never above a claimable workspace's pass, it
-- ranks first, and a claim reads and writes it with the workspace whose turn it is. One
-- that leaves `workspaces` with a pass ahead of virtual time keeps it in `passes`; one at
-- or behind virtual time would come back at virtual time anyway, and keeps nothing.
-- When no workspace is left in either set, virtual time and the kept passes start over.
--
-- Functions are made anew by every call, at a cost for each value they capture: the
-- includes define only those their scripts share, and capture little; a script may
-- include settle.lua only on the paths that need it.
local readySub, readyNormal = KEYS[1], KEYS[2]
local base = ARGV[1]
local workspaces, VTIME = base .. "workspaces", ""
--@include fair-share
--@include number-args
--@include workspace-keys
local now = serverNow()
local bound = "(" .. numberArg(readyBelow(now))
