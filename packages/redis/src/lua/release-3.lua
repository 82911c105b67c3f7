-- Drops a session lock if the token still holds it (and its place among its workspace's
-- held locks); puts back an entry that did not start; makes the session ready again (at
-- the back of the line, or at the place it had when claimed if its run did not start),
-- or, told not to, takes it out of the lanes until its missing earlier run is enqueued or
-- ends. An earlier run enqueued while the lock was held is the head now: then it is ready;
-- so it is when that earlier run ended meanwhile (ready-stranded's mark).
-- KEYS: readySub, readyNormal, entries
-- ARGV: base, fair-share digest, fair-share configuration or "", sessionId, token, the
-- lock's workspaceId, putBack entry JSON or "", ready "1" | "0", ready score to take back
-- (a claim whose run did not start: it keeps its place in line) or "", the most time the
-- lock may have left to be dropped or "" (an orphan's repair: a holder that renewed it
-- since keeps it, docs/spec.md §7)
-- Returns 1 when the token held the lock (and, given a most time left, had no more).
local session, token, lockWs = ARGV[4], ARGV[5], ARGV[6]
--@include server-time
--@include lanes
--@include settle
--@include placement

local held = 0
local lock = base .. "lock:" .. session
if redis.call("GET", lock) == token
  and (ARGV[10] == "" or redis.call("PTTL", lock) <= tonumber(ARGV[10])) then
  redis.call("DEL", lock)
  -- Held locks are kept for capped workspaces only: none without a configuration.
  if fairShareConfigured then
    redis.call("ZREM", heldLocks(lockWs), session)
  end
  touch(lockWs, false)
  held = 1
end
local ready = ARGV[8] == "1"
-- The mark of a blocker that ended is this lock's: taken by the release that frees it.
if redis.call("EXISTS", lock) == 0 and redis.call("DEL", base .. "ready-on-release:" .. session) == 1 then
  ready = true
end
if ARGV[7] ~= "" then
  addEntry(ARGV[7])
  if not ready then
    local head = redis.call("ZRANGE", base .. "queue:" .. session, "0", "0")[1]
    ready = head ~= cjson.decode(ARGV[7]).runId
  end
end
if ready then
  place(session, tonumber(ARGV[9]), held == 1)
elseif redis.call("EXISTS", lock) == 0 then
  unplace(session)
end
settleTouched()
-- A capped workspace that may take one more session now: its ready sessions were
-- announced when they became ready, maybe while it could take none.
if held == 1 and fairShareConfigured then
  local _, cap = fairShareOf(lockWs)
  if cap and redis.call("ZRANK", workspaces, lockWs) then
    redis.call("PUBLISH", wakeChannel, "1")
  end
end
return held
