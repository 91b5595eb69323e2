//! The Lua scripts the cluster backend runs on each master: one per master per round trip, so
//! that what a master answers (or applies) is atomic on that master. They are flagged
//! `allow-cross-slot-keys` (Redis 7): their keys lie in many slots, all served by the master.

/// Reads on one master, atomically with its head (the last commit that started applying there).
/// `KEYS[1]` is the head key (the only declared key: it routes the script to its master; the
/// others, in other slots the master serves, are in `ARGV`, which `allow-cross-slot-keys`
/// permits). Then each op with its keys and arguments in order: `g key`: GET; `f key field`:
/// HGET; `a key`: HGETALL; `r zset hash min max limit`: the members in the lexical range and
/// their values, as `{members, values}`; `R …`: the same in descending order. Returns
/// `{head, result1, result2, …}`.
pub(crate) const READ: &str = r#"#!lua flags=no-writes,allow-cross-slot-keys
local out = {redis.call('GET', KEYS[1]) or false}
local a = 1
while a <= #ARGV do
  local code = ARGV[a]
  if code == 'g' then
    out[#out + 1] = redis.call('GET', ARGV[a + 1]) or false
    a = a + 2
  elseif code == 'f' then
    out[#out + 1] = redis.call('HGET', ARGV[a + 1], ARGV[a + 2]) or false
    a = a + 3
  elseif code == 'a' then
    out[#out + 1] = redis.call('HGETALL', ARGV[a + 1])
    a = a + 2
  elseif code == 'r' or code == 'R' then
    local members
    if code == 'r' then
      members = redis.call('ZRANGEBYLEX', ARGV[a + 1], ARGV[a + 3], ARGV[a + 4], 'LIMIT', 0, tonumber(ARGV[a + 5]))
    else
      members = redis.call('ZREVRANGEBYLEX', ARGV[a + 1], ARGV[a + 4], ARGV[a + 3], 'LIMIT', 0, tonumber(ARGV[a + 5]))
    end
    local values = {}
    if #members > 0 then values = redis.call('HMGET', ARGV[a + 2], unpack(members)) end
    for i = 1, #values do values[i] = values[i] or '' end
    out[#out + 1] = {members, values}
    a = a + 6
  else
    return redis.error_reply('cairn: unknown read op ' .. tostring(code))
  end
end
return out
"#;

/// Applies one commit's writes on one master, atomically with setting its head. `KEYS[1]` is
/// the head key (as for [`READ`]), `ARGV[1]` the commit; then each op: `s key value`: SET;
/// `d key`: DEL; `H key field value`: HSET; `D key field`: HDEL; `Z zset hash member value`:
/// add to an ordered group; `X zset hash member`: remove.
pub(crate) const APPLY: &str = r#"#!lua flags=allow-cross-slot-keys
redis.call('SET', KEYS[1], ARGV[1])
local a = 2
while a <= #ARGV do
  local code = ARGV[a]
  if code == 's' then
    redis.call('SET', ARGV[a + 1], ARGV[a + 2])
    a = a + 3
  elseif code == 'd' then
    redis.call('DEL', ARGV[a + 1])
    a = a + 2
  elseif code == 'H' then
    redis.call('HSET', ARGV[a + 1], ARGV[a + 2], ARGV[a + 3])
    a = a + 4
  elseif code == 'D' then
    redis.call('HDEL', ARGV[a + 1], ARGV[a + 2])
    a = a + 3
  elseif code == 'Z' then
    redis.call('ZADD', ARGV[a + 1], 0, ARGV[a + 3])
    redis.call('HSET', ARGV[a + 2], ARGV[a + 3], ARGV[a + 4])
    a = a + 5
  elseif code == 'X' then
    redis.call('ZREM', ARGV[a + 1], ARGV[a + 3])
    redis.call('HDEL', ARGV[a + 2], ARGV[a + 3])
    a = a + 4
  else
    return redis.error_reply('cairn: unknown write op ' .. tostring(code))
  end
end
return 1
"#;

/// Writes a commit record to the log while the writer holds its lease: `KEYS` = lease, pending,
/// record; `ARGV` = lease token, commit, record bytes, lease milliseconds.
pub(crate) const LOG: &str = r#"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return redis.error_reply('CAIRNLEASE this process no longer holds the writer lease')
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('SET', KEYS[3], ARGV[3])
redis.call('SET', KEYS[2], ARGV[2])
return 1
"#;

/// Marks a commit committed: `KEYS` = seq, pending, a record to trim; `ARGV` = the commit.
pub(crate) const FINISH: &str = r#"
redis.call('SET', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
redis.call('DEL', KEYS[3])
return 1
"#;

/// Renews the writer lease if this process holds it: `KEYS` = lease; `ARGV` = token, ms.
pub(crate) const RENEW: &str = r#"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"#;

/// Gives the writer lease up if this process holds it: `KEYS` = lease; `ARGV` = token.
pub(crate) const RELEASE: &str = r#"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"#;
