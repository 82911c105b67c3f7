-- Extends the session locks still held by their tokens, all in one call.
-- ARGV: base, lockTtlMs, then pairs of sessionId, token
-- Returns the sessions whose lock the token no longer holds.
local base, ttl = ARGV[1], ARGV[2]
local lost = {}
for i = 3, #ARGV, 2 do
  local lock = base .. "lock:" .. ARGV[i]
  if redis.call("GET", lock) == ARGV[i + 1] then
    redis.call("PEXPIRE", lock, ttl)
  else
    table.insert(lost, ARGV[i])
  end
end
return lost
