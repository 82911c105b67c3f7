-- Extends the session locks still held by their tokens, all in one call, and keeps
-- their sessions hidden in the lanes as long (and their places among their workspaces'
-- held locks). A lock that is simply gone (Redis flushed or restarted) is not taken
-- again: the run goes on, and the store, which refuses to start a session's later run
-- before this one ends, keeps the order.
-- KEYS: readySub, readyNormal
-- ARGV: base, fair-share digest, fair-share configuration or "", lockTtlMs, then triples
-- of sessionId, token, the lock's workspaceId
-- Returns the sessions whose lock another token now holds.
--@include server-time
--@include lanes
--@include settle
local lockedUntil = numberArg(now + tonumber(ARGV[4]))
local lost = {}
for i = 5, #ARGV, 3 do
  local session, lockWs = ARGV[i], ARGV[i + 2]
  local lock = base .. "lock:" .. session
  local holder = redis.call("GET", lock)
  if holder == ARGV[i + 1] then
    redis.call("PEXPIRE", lock, ARGV[4])
    redis.call("ZADD", readySub, "XX", lockedUntil, session)
    redis.call("ZADD", readyNormal, "XX", lockedUntil, session)
    local ws = redis.call("HGET", sessionWs, session)
    if ws then
      redis.call("ZADD", workspaceLane(ws, "subagent"), "XX", lockedUntil, session)
      redis.call("ZADD", workspaceLane(ws, "normal"), "XX", lockedUntil, session)
      touch(ws, false)
    end
    if fairShareConfigured then
      redis.call("ZADD", heldLocks(lockWs), "XX", lockedUntil, session)
      touch(lockWs, false)
    end
  elseif holder then
    table.insert(lost, session)
  end
end
settleTouched()
return lost
