-- Redis's own clock, in epoch milliseconds: every host reads the same time.
local function serverNow()
  local t = redis.call("TIME")
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
