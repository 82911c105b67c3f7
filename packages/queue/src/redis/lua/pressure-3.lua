-- The queue figures the pool sizes itself by. Lane sizes are O(1); locked and
-- empty entries are counted among the oldest `sample` of each lane only, so the
-- read stays O(sample · log n) however many sessions are ready.
-- KEYS: readySub, readyNormal, entries
-- ARGV: base, sample
-- Returns {subagent size, normal size, subagent locked, subagent stale, normal locked,
--          normal stale, oldest schedulable readySince or -1, queued runs}
local base, sample = ARGV[1], tonumber(ARGV[2])
local result = { redis.call("ZCARD", KEYS[1]), redis.call("ZCARD", KEYS[2]) }
local oldest = -1
for i, lane in ipairs({ KEYS[1], KEYS[2] }) do
  local locked, stale = 0, 0
  local members = redis.call("ZRANGE", lane, 0, sample - 1, "WITHSCORES")
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
table.insert(result, oldest)
table.insert(result, redis.call("HLEN", KEYS[3]))
return result
