-- The queue figures the pool sizes itself by, in O(sample · log n) however many
-- sessions wait. Hidden (future-scored) entries are locked sessions; among the oldest
-- `sample` ready entries of each lane, locked and empty ones are counted as well.
-- KEYS: readySub, readyNormal, entries
-- ARGV: base, sample
-- Returns {subagent size, normal size, subagent locked, subagent stale, normal locked,
--          normal stale, age in ms of the oldest schedulable session or -1, queued runs}
local base, sample = ARGV[1], tonumber(ARGV[2])
--@include server-time
local now = serverNow()
local result = { redis.call("ZCARD", KEYS[1]), redis.call("ZCARD", KEYS[2]) }
local oldest = -1
for _, lane in ipairs({ KEYS[1], KEYS[2] }) do
  local locked = redis.call("ZCOUNT", lane, readyBelow(now), "+inf")
  local stale = 0
  local members = redis.call("ZRANGEBYSCORE", lane, "-inf", "(" .. readyBelow(now), "WITHSCORES", "LIMIT", 0, sample)
  for j = 1, #members, 2 do
    local session, since = members[j], tonumber(members[j + 1])
    if redis.call("EXISTS", base .. "lock:" .. session) == 1 then
      locked = locked + 1
    elseif redis.call("EXISTS", base .. "queue:" .. session) == 0 then
      stale = stale + 1
    elseif oldest == -1 or since < oldest then
      oldest = since
    end
  end
  table.insert(result, locked)
  table.insert(result, stale)
end
table.insert(result, oldest == -1 and -1 or math.max(0, now - oldest))
table.insert(result, redis.call("HLEN", KEYS[3]))
return result
