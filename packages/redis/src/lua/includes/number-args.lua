-- A number as an argument to redis.call: a whole one (milliseconds, the passes of equal
-- weights) as an integer, any other in full (%.17g), so that it reads back as the very
-- double computed here, and in the in-process queue.
local function numberArg(x)
  if x == math.floor(x) and x > -1e15 and x < 1e15 then
    return string.format("%d", x)
  end
  return string.format("%.17g", x)
end
