-- Extends the session locks still held by their tokens, all in one call. A lock that
-- is simply gone (Redis flushed or restarted) is taken again: nobody else holds the
-- session, and the store's fencing still refuses a holder whose run was taken over.
-- ARGV: base, lockTtlMs, then pairs of sessionId, token
-- Returns the sessions whose lock another token holds.
local base, ttl = ARGV[1], ARGV[2]
local lost = {}
for i = 3, #ARGV, 2 do
  local lock = base .. "lock:" .. ARGV[i]
  local holder = redis.call("GET", lock)
  if holder == ARGV[i + 1] then
    redis.call("PEXPIRE", lock, ttl)
  elseif not holder then
    redis.call("SET", lock, ARGV[i + 1], "PX", ttl)
  else
    table.insert(lost, ARGV[i])
  end
end
return lost
