-- A write of the leading controller: made only while the writer's lease is still the
-- current one, so that a deposed leader (frozen past its lease, then thawed) changes
-- nothing, even when it has not yet noticed that it no longer leads.
-- KEYS: leader lease ("<token> <candidate>"), the hash written
-- ARGV: the writer's lease value, field, value ("" deletes the field)
-- Returns 1 when written, 0 when refused.
if redis.call("GET", KEYS[1]) ~= ARGV[1] then
  return 0
end
if ARGV[3] == "" then
  redis.call("HDEL", KEYS[2], ARGV[2])
else
  redis.call("HSET", KEYS[2], ARGV[2], ARGV[3])
end
return 1
