-- The queue figures the pool sizes itself by, in O(sample · log n) however many
-- sessions wait. Hidden (future-scored) entries are locked sessions; among the oldest
-- `sample` ready entries of each lane, locked and empty ones are counted as well.
-- KEYS: readySub, readyNormal, entries
-- ARGV: base, sample
-- Returns the QueuePressure as a flat list of name, value pairs (a new figure is
-- one more pair here, read by name on the other side).
local base, sample = ARGV[1], tonumber(ARGV[2])
--@include server-time
local now = serverNow()
local oldest = -1
local size, locked, stale = {}, {}, {}
for i, lane in ipairs({ KEYS[1], KEYS[2] }) do
  size[i] = redis.call("ZCARD", lane)
  locked[i] = redis.call("ZCOUNT", lane, readyBelow(now), "+inf")
  stale[i] = 0
  local members = redis.call("ZRANGEBYSCORE", lane, "-inf", "(" .. readyBelow(now), "WITHSCORES", "LIMIT", 0, sample)
  for j = 1, #members, 2 do
    local session, since = members[j], tonumber(members[j + 1])
    if redis.call("EXISTS", base .. "lock:" .. session) == 1 then
      locked[i] = locked[i] + 1
    elseif redis.call("EXISTS", base .. "queue:" .. session) == 0 then
      stale[i] = stale[i] + 1
    elseif oldest == -1 or since < oldest then
      oldest = since
    end
  end
end
local ready = size[1] + size[2]
return {
  "readyQueueDepth", ready,
  "uniqueReadySessionCount", ready,
  "subagentReadySessionCount", size[1] - locked[1] - stale[1],
  "subagentReadyQueueDepth", size[1],
  "lockedReadySessionCount", locked[1] + locked[2],
  "staleReadySessionCount", stale[1] + stale[2],
  "readySessionCount", ready - locked[1] - locked[2] - stale[1] - stale[2],
  "oldestSchedulableReadyAgeMs", oldest == -1 and 0 or math.max(0, now - oldest),
}
