-- Makes ready the sessions among ARGV that hold runs while neither locked nor in a
-- workspace's lane: nothing would ever claim them (a wake-up lost to a bug, or a session
-- placed before lanes were kept by workspace). The reconcile of the queue with the store
-- calls it for sessions whose runs have waited long.
-- With blockerEnded "1" (their earlier run ended outside any claim), a session locked now is
-- marked so that its release makes it ready, even by a holder that says "not ready": the
-- holder's run was blocked by the run that ended. The mark lasts as long as the lock.
-- KEYS: readySub, readyNormal, entries
-- ARGV: base, fair-share digest, fair-share configuration or "", blockerEnded "1" | "0",
-- sessionId...
-- Returns the sessions it made ready.
--@include server-time
--@include lanes
--@include settle
--@include placement

local blockerEnded = ARGV[4] == "1"
local stranded = {}
for i = 5, #ARGV do
  local session = ARGV[i]
  local lockLeft = redis.call("PTTL", base .. "lock:" .. session)
  if lockLeft > 0 then
    if blockerEnded then
      redis.call("SET", base .. "ready-on-release:" .. session, "1", "PX", lockLeft)
    end
  elseif redis.call("HEXISTS", sessionWs, session) == 0
    and redis.call("ZCARD", base .. "queue:" .. session) > 0 then
    place(session)
    table.insert(stranded, session)
  end
end
settleTouched()
return stranded
