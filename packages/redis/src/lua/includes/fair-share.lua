-- The fair-share configuration of the calling host (weights and caps by workspace),
-- named by its digest (ARGV[2]; "": equal weights and no caps, stored nowhere) and kept
-- in a hash of its own, fair-share:<digest>, so that every call applies its own host's
-- configuration and reads only the figures of the workspaces it serves. A call that
-- finds the hash missing (the first, or after a flush) fails with OAH_FAIR_SHARE_STALE
-- before it writes anything; its host makes it again with the configuration (ARGV[3]),
-- which the call stores. Included before anything is written. Needs: base.
local fairShareConfigured = ARGV[2] ~= ""
local fairShareKey = fairShareConfigured and base .. "fair-share:" .. ARGV[2]
if fairShareConfigured and redis.call("EXISTS", fairShareKey) == 0 then
  if ARGV[3] == "" then
    return redis.error_reply("OAH_FAIR_SHARE_STALE the fair-share configuration is not in Redis")
  end
  local config = cjson.decode(ARGV[3])
  redis.call("HSET", fairShareKey, "digest", ARGV[2])
  for ws, weight in pairs(config.weights) do
    redis.call("HSET", fairShareKey, "weight:" .. ws, string.format("%.17g", weight))
  end
  for ws, cap in pairs(config.caps) do
    redis.call("HSET", fairShareKey, "cap:" .. ws, string.format("%d", cap))
  end
end

-- A workspace's weight (1 when not configured) and cap (nil: none).
local function fairShareOf(ws)
  if not fairShareConfigured then
    return 1, nil
  end
  local figures = redis.call("HMGET", fairShareKey, "weight:" .. ws, "cap:" .. ws)
  return tonumber(figures[1]) or 1, tonumber(figures[2])
end
