-- Takes the controller's leader lease when nobody holds it, or renews it for the
-- holder that still has it. A new holder gets a new fencing token, one above every
-- token given before, so that a deposed leader is told apart from the current one.
-- KEYS: leader (value "<token> <candidate>", with the lease's TTL), fence (token counter)
-- ARGV: candidate, ttl in ms, the token this candidate holds or "" (none)
-- Returns the token when the candidate leads now, 0 when another does (or it was deposed).
local current = redis.call("GET", KEYS[1])
if not current then
  local token = redis.call("INCR", KEYS[2])
  redis.call("SET", KEYS[1], token .. " " .. ARGV[1], "PX", ARGV[2])
  return token
end
if ARGV[3] ~= "" and current == ARGV[3] .. " " .. ARGV[1] then
  redis.call("PEXPIRE", KEYS[1], ARGV[2])
  return tonumber(ARGV[3])
end
return 0
