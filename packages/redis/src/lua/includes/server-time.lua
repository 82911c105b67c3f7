-- Redis's own clock, in epoch milliseconds: every host reads the same time.
local function serverNow()
  local t = redis.call("TIME")
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- Scores below this are ready. Sessions made ready within one millisecond are ordered
-- by fractions of it (backOfLine), so a ready score may run ahead of `now` by less
-- than a millisecond; a held lock hides its session a whole millisecond ahead or more.
local function readyBelow(now)
  return now + 1
end
