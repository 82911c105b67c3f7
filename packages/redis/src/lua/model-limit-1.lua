-- The capacity of one model under its limits, shared by every host (docs/spec.md §6, *Model
-- limits*): @oah/core's rule (model-limits.ts: takeCapacity, settleTokens, blockCapacity) applied
-- atomically on Redis's clock. A bucket of requests and one of tokens, each holding a tenth of its
-- limit a minute and refilling at the other nine tenths over the minute, at half that rate until
-- `slow` after a provider's 429, and nothing taken before `blocked`.
-- KEYS: the model's capacity (hash: rl, ra, tl, ta = each bucket's level and when refilled; blocked, slow)
-- ARGV: op ("take", "settle", "block"), requests per minute (0: none), tokens per minute (0: none),
--       amount (take: the tokens reckoned; settle: actual − reckoned; block: ms)
-- Returns, for take, 0 when a request and the tokens were taken, else the ms to wait; 0 otherwise.
--@include server-time
--@include number-args
local BUCKET_SHARE = 0.1
local SLOW_RATE_SHARE = 0.5
local SLOW_AFTER_BLOCK_MS = 60000

local now = serverNow()
local op = ARGV[1]
local perMinute = { r = tonumber(ARGV[2]), t = tonumber(ARGV[3]) }
local amount = tonumber(ARGV[4])
local saved = redis.call("HMGET", KEYS[1], "rl", "ra", "tl", "ta", "blocked", "slow")
local blocked = tonumber(saved[5]) or 0
local slow = tonumber(saved[6]) or 0

local function capacityOf(b)
  return perMinute[b] * BUCKET_SHARE
end
local function rateOf(b)
  return perMinute[b] * (1 - BUCKET_SHARE) / 60000
end

local level, at = {}, {}
for i, b in ipairs({ "r", "t" }) do
  if perMinute[b] == 0 then
    level[b], at[b] = 0, now
  else
    local l = tonumber(saved[i * 2 - 1])
    local a = tonumber(saved[i * 2])
    if l == nil then
      l, a = capacityOf(b), now
    end
    if now > a then
      local slowMs = math.max(0, math.min(now, slow) - a)
      local normalMs = now - a - slowMs
      l = math.min(capacityOf(b), l + rateOf(b) * (normalMs + slowMs * SLOW_RATE_SHARE))
      a = now
    end
    level[b], at[b] = l, a
  end
end

local function waitFor(b, cost)
  if perMinute[b] == 0 then
    return 0
  end
  local need = math.min(cost, capacityOf(b))
  if level[b] >= need then
    return 0
  end
  local rate = rateOf(b)
  if now < slow then
    rate = rate * SLOW_RATE_SHARE
  end
  return math.ceil((need - level[b]) / rate)
end

local answer = 0
if op == "take" then
  if now < blocked then
    answer = blocked - now
  else
    answer = math.max(waitFor("r", 1), waitFor("t", amount))
    if answer == 0 then
      level.r = level.r - 1
      level.t = level.t - amount
    end
  end
elseif op == "settle" then
  if perMinute.t ~= 0 then
    level.t = math.min(capacityOf("t"), level.t - amount)
  end
elseif op == "block" then
  blocked = math.max(blocked, now + amount)
  slow = blocked + SLOW_AFTER_BLOCK_MS
  for _, b in ipairs({ "r", "t" }) do
    level[b] = math.min(level[b], 0)
    at[b] = blocked
  end
end

redis.call("HSET", KEYS[1], "rl", numberArg(level.r), "ra", numberArg(at.r), "tl", numberArg(level.t),
  "ta", numberArg(at.t), "blocked", numberArg(blocked), "slow", numberArg(slow))
-- Idle for as long as a bucket takes to fill, and past the slow rate, the record says no more
-- than its absence (full buckets): it lapses.
redis.call("PEXPIRE", KEYS[1], math.max(slow, now) - now + 60000)
return answer
