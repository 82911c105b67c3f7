-- Extends the session locks still held by their tokens, all in one call, and keeps
-- their sessions hidden in the ready lanes as long. A lock that is simply gone (Redis
-- flushed or restarted) is not taken again: the run goes on, and the store, which
-- refuses to start a session's later run before this one ends, keeps the order.
-- KEYS: readySub, readyNormal
-- ARGV: base, lockTtlMs, then pairs of sessionId, token
-- Returns the sessions whose lock another token now holds.
local base, ttl = ARGV[1], tonumber(ARGV[2])
--@include server-time
local now = serverNow()
local lost = {}
for i = 3, #ARGV, 2 do
  local session = ARGV[i]
  local lock = base .. "lock:" .. session
  local holder = redis.call("GET", lock)
  if holder == ARGV[i + 1] then
    redis.call("PEXPIRE", lock, ttl)
    redis.call("ZADD", KEYS[1], "XX", now + ttl, session)
    redis.call("ZADD", KEYS[2], "XX", now + ttl, session)
  elseif holder then
    table.insert(lost, session)
  end
end
return lost
