-- Deletes a lock only for the token that holds it, so that a holder outliving the
-- lock's TTL never frees the lock another host has taken since.
-- KEYS: lock
-- ARGV: token
-- Returns 1 when the lock was this token's and is now free.
if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("DEL", KEYS[1])
end
return 0
